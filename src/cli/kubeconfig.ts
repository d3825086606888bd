// Writes a kubeconfig whose current context `bonsai` points at the server.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { stringify } from 'yaml';

export function kubeconfigYaml(url: string): string {
  return stringify({
    apiVersion: 'v1', kind: 'Config', preferences: {},
    clusters: [{ name: 'bonsai', cluster: { server: url } }],
    users: [{ name: 'bonsai', user: {} }],
    contexts: [{ name: 'bonsai', context: { cluster: 'bonsai', user: 'bonsai', namespace: 'default' } }],
    'current-context': 'bonsai',
  });
}

export function writeKubeconfig(path: string, url: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, kubeconfigYaml(url), { mode: 0o600 });
}
