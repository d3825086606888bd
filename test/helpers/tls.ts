// Helpers for tests of a TLS server: raw HTTPS requests with a chosen CA, client certificate or token, kubeconfigs
// for other identities, and PKCS#10 requests made with @peculiar/x509.
import { request } from 'node:https';
import { KeyObject, webcrypto } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { loadX509 } from '../../src/auth/pki/x509-lib.js';
import { kubeconfigYaml, type KubeconfigCredentials } from '../../src/cli/kubeconfig.js';

export interface HttpsResult {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface HttpsOptions {
  ca: string;
  cert?: string;
  key?: string;
  headers?: Record<string, string>;
  body?: string;
}

export function httpsRequest(base: string, method: string, path: string, o: HttpsOptions): Promise<HttpsResult> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'application/json', ...(o.headers ?? {}) };
    if (o.body !== undefined) {
      headers['content-type'] ??= 'application/json';
      headers['content-length'] = String(Buffer.byteLength(o.body));
    }
    const req = request(new URL(path, base), { method, headers, ca: o.ca, cert: o.cert, key: o.key }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, body, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** Writes a kubeconfig for `url` with these credentials (and the CA) and returns its path. */
export function writeKubeconfigFor(path: string, url: string, creds: KubeconfigCredentials): string {
  writeFileSync(path, kubeconfigYaml(url, creds), { mode: 0o600 });
  return path;
}

/** A new ECDSA key and a CSR for CN=`cn`, O=`orgs` (PEM both). */
export async function makeCsr(cn: string, orgs: string[]): Promise<{ csrPem: string; keyPem: string }> {
  const x509 = await loadX509();
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']));
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: [...orgs.map((o) => ({ O: [o] })), { CN: [cn] }], keys, signingAlgorithm: alg });
  const keyPem = KeyObject.from(keys.privateKey).export({ type: 'pkcs8', format: 'pem' }).toString();
  return { csrPem: csr.toString('pem'), keyPem };
}

export function csrManifest(name: string, csrPem: string, signerName = 'kubernetes.io/kube-apiserver-client', extra = ''): string {
  return `apiVersion: certificates.k8s.io/v1
kind: CertificateSigningRequest
metadata:
  name: ${name}
spec:
  request: ${Buffer.from(csrPem).toString('base64')}
  signerName: ${signerName}
  usages: [client auth]${extra}
`;
}
