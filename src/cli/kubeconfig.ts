// Writes a kubeconfig whose current context `bonsai` points at the server. The document is fixed apart from the
// URL, so it is written as text (the URL as a JSON string, which is a valid YAML scalar) rather than by loading
// a YAML library on the way to the first request.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function kubeconfigYaml(url: string): string {
  // @kubernetes/client-node (1.x) refuses a plain-http server unless the cluster says insecure-skip-tls-verify;
  // kubectl and client-go ignore the flag for http.
  const insecure = url.startsWith('http:') ? '\n      insecure-skip-tls-verify: true' : '';
  return `apiVersion: v1
kind: Config
preferences: {}
clusters:
  - name: bonsai
    cluster:
      server: ${JSON.stringify(url)}${insecure}
users:
  - name: bonsai
    user: {}
contexts:
  - name: bonsai
    context:
      cluster: bonsai
      user: bonsai
      namespace: default
current-context: bonsai
`;
}

export function writeKubeconfig(path: string, url: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYaml(url), { mode: 0o600 });
}
