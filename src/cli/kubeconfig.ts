// Writes a kubeconfig whose current context `bonsai` points at the server and authenticates as the admin
// (`bonsai-admin` in system:masters): with a client certificate and the CA over TLS, with the admin bearer token
// over plain HTTP. The document is fixed apart from those values, so it is written as text (strings as JSON
// strings, which are valid YAML scalars) rather than by loading a YAML library on the way to the first request.
import { readIfExists, writePrivateFile } from '../util/private-files.js';
import { yaml } from '../util/yaml.js';

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

/**
 * The kubeconfig to write where `existing` was: Bonsai's own `bonsai` cluster and user replaced, its `bonsai`
 * context pointed at them (a namespace the user chose is kept), every other entry, the user's current context and
 * their comments kept. A file that is not a kubeconfig mapping is replaced by a fresh one.
 */
export function mergeKubeconfig(existing: string, url: string, creds: KubeconfigCredentials = {}): string {
  const fresh = kubeconfigYaml(url, creds);
  if (existing === fresh || !existing.trim()) return fresh;
  const { parseDocument, isMap, isSeq } = yaml();
  const doc = parseDocument(existing);
  if (doc.errors.length || !isMap(doc.contents)) return fresh;
  const ours = yaml().parse(fresh) as Record<'clusters' | 'users' | 'contexts', Array<{ name: string; [k: string]: unknown }>>;
  for (const list of ['clusters', 'users', 'contexts'] as const) {
    const entry = ours[list][0];
    let seq = doc.get(list);
    if (!isSeq(seq)) {
      doc.set(list, doc.createNode([]));
      seq = doc.get(list);
    }
    if (!isSeq(seq)) return fresh;
    const at = seq.items.findIndex((it) => isMap(it) && it.get('name') === entry.name);
    if (at < 0) {
      seq.items.push(doc.createNode(entry));
      continue;
    }
    if (list === 'contexts') {
      // Keep what the user set on Bonsai's context (its namespace, say); it names Bonsai's cluster and user.
      const ctx = seq.items[at];
      const inner = isMap(ctx) ? ctx.get('context') : undefined;
      if (isMap(inner)) {
        inner.set('cluster', 'bonsai');
        inner.set('user', 'bonsai');
        continue;
      }
    }
    seq.items[at] = doc.createNode(entry);
  }
  const current = doc.get('current-context');
  if (typeof current !== 'string' || !current) doc.set('current-context', 'bonsai');
  if (!doc.has('apiVersion')) doc.set('apiVersion', 'v1');
  if (!doc.has('kind')) doc.set('kind', 'Config');
  return doc.toString();
}

/** Writes the kubeconfig, merged into the file already there (see mergeKubeconfig). */
export function writeMergedKubeconfig(path: string, url: string, creds: KubeconfigCredentials = {}): void {
  const existing = readIfExists(path);
  writePrivateFile(path, existing === undefined ? kubeconfigYaml(url, creds) : mergeKubeconfig(existing, url, creds));
}
