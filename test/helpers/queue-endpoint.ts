// A JSON endpoint a test serves as the "queue" a KEDA metrics-api trigger reads: `{queue: {depth}, items: [{n}]}`
// with the value the test sets (paths under /auth want `Authorization: Bearer s3cret`).
import { after, before } from 'node:test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The test's "queue": a JSON endpoint whose value the test sets. */
export function useQueueEndpoint(): { url: (path?: string) => string; set: (n: number) => void; hits: () => number } {
  let value = 0;
  let hits = 0;
  let server: Server;
  before(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url?.startsWith('/auth') && req.headers.authorization !== 'Bearer s3cret') {
        res.writeHead(401).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ queue: { depth: value }, items: [{ n: value }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  // Open keep-alive connections (a scaler's) would hold close() forever: cut them.
  after(() => new Promise<void>((r) => {
    if (!server) return r();
    server.close(() => r());
    server.closeAllConnections();
  }));
  return {
    url: (path = '/queue') => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    set: (n) => void (value = n),
    hits: () => hits,
  };
}

