// Writes a kubeconfig whose current context `bonsai` points at the server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { yaml } from '../util/yaml.js';

export function kubeconfigYaml(url: string): string {
  return yaml().stringify({
    apiVersion: 'v1', kind: 'Config', preferences: {},
    // @kubernetes/client-node (1.x) refuses a plain-http server unless the cluster says insecure-skip-tls-verify;
    // kubectl and client-go ignore the flag for http.
    clusters: [{ name: 'bonsai', cluster: url.startsWith('http:') ? { server: url, 'insecure-skip-tls-verify': true } : { server: url } }],
    users: [{ name: 'bonsai', user: {} }],
    contexts: [{ name: 'bonsai', context: { cluster: 'bonsai', user: 'bonsai', namespace: 'default' } }],
    'current-context': 'bonsai',
  });
}

export function writeKubeconfig(path: string, url: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYaml(url), { mode: 0o600 });
}
