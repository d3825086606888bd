// An HTTPS server on 127.0.0.1 for webhook tests: a CA made for the test (its PEM, base64, is the caBundle), a
// serving certificate for 127.0.0.1, and the request bodies decoded as JSON before the handler sees them.
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClusterCa, generateCa } from '../../src/auth/pki/cluster-ca.js';

export interface HttpsTestServer {
  /** `https://127.0.0.1:<port>`. */
  base: string;
  caBundle: string;
  close(): Promise<void>;
}

/** Starts the server; `handle` gets the path (with query) and the decoded JSON body. Close it in a `finally`/`after`. */
export async function startHttpsTestServer(name: string, handle: (url: string, body: any, res: ServerResponse) => void): Promise<HttpsTestServer> {
  const ca = await generateCa(`${name}-ca`);
  const serving = await new ClusterCa(ca.certPem, ca.keyPem).issueKeyPair('server', [{ CN: [name] }], 1, { dns: [], ips: ['127.0.0.1'] });
  const server: Server = createServer({ key: serving.keyPem, cert: serving.certPem }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req.url ?? '/', JSON.parse(Buffer.concat(chunks).toString('utf8')), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    caBundle: Buffer.from(ca.certPem).toString('base64'),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
