// Writes a kubeconfig whose current context `bonsai` points at the server and authenticates as the admin
// (`bonsai-admin` in system:masters): with a client certificate and the CA over TLS, with the admin bearer token
// over plain HTTP. The document is fixed apart from those values, so it is written as text (strings as JSON
// strings, which are valid YAML scalars) rather than by loading a YAML library on the way to the first request.
import { writePrivateFile } from '../util/private-files.js';

export interface KubeconfigCredentials {
  token?: string;
  /** PEM. */
  ca?: string;
  clientCert?: string;
  clientKey?: string;
}

const b64 = (pem: string) => JSON.stringify(Buffer.from(pem).toString('base64'));

export function kubeconfigYaml(url: string, creds: KubeconfigCredentials = {}): string {
  // @kubernetes/client-node (1.x) refuses a plain-http server unless the cluster says insecure-skip-tls-verify;
  // kubectl and client-go ignore the flag for http.
  const cluster = url.startsWith('http:')
    ? '\n      insecure-skip-tls-verify: true'
    : creds.ca ? `\n      certificate-authority-data: ${b64(creds.ca)}` : '';
  const user = creds.clientCert && creds.clientKey
    ? `\n      client-certificate-data: ${b64(creds.clientCert)}\n      client-key-data: ${b64(creds.clientKey)}`
    : creds.token ? `\n      token: ${JSON.stringify(creds.token)}` : ' {}';
  return `apiVersion: v1
kind: Config
preferences: {}
clusters:
  - name: bonsai
    cluster:
      server: ${JSON.stringify(url)}${cluster}
users:
  - name: bonsai
    user:${user}
contexts:
  - name: bonsai
    context:
      cluster: bonsai
      user: bonsai
      namespace: default
current-context: bonsai
`;
}

export function writeKubeconfig(path: string, url: string, creds: KubeconfigCredentials = {}): void {
  writePrivateFile(path, kubeconfigYaml(url, creds));
}
