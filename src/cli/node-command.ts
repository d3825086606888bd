// `bonsai node stop|start NAME`: stops or starts a simulated node's kubelet on a running server by setting or
// removing the node's bonsai.dev/stopped annotation. It authenticates as the kubeconfig says: a bearer token
// (plain HTTP) or a client certificate verified against the kubeconfig's CA (TLS).
import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { parse } from 'yaml';
import { simAnnotations } from '../kubelet/annotations.js';
import { isRecord } from '../machinery/types.js';

export interface Target {
  server: string;
  token?: string;
  /** PEM. */
  ca?: string;
  cert?: string;
  key?: string;
  insecureSkipVerify?: boolean;
}

function named(list: unknown, name: unknown, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  const item: unknown = list.find((x: unknown) => isRecord(x) && x.name === name);
  return isRecord(item) && isRecord(item[field]) ? item[field] : undefined;
}

/** A PEM from `<field>-data` (base64) or from the file `<field>`. */
function pem(section: Record<string, unknown> | undefined, field: string): string | undefined {
  const data = section?.[`${field}-data`];
  if (typeof data === 'string') return Buffer.from(data, 'base64').toString('utf8');
  const file = section?.[field];
  return typeof file === 'string' ? readFileSync(file, 'utf8') : undefined;
}

/** The server URL and credentials of a kubeconfig's current context. */
export function targetFromKubeconfig(path: string): Target {
  let doc: unknown;
  try {
    doc = parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`cannot read kubeconfig ${path}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isRecord(doc)) throw new Error(`${path} is not a kubeconfig`);
  const context = named(doc.contexts, doc['current-context'], 'context');
  const cluster = named(doc.clusters, context?.cluster, 'cluster');
  if (typeof cluster?.server !== 'string') throw new Error(`${path}: the current context names no cluster with a server`);
  const user = named(doc.users, context?.user, 'user');
  const tokenFile = typeof user?.tokenFile === 'string' ? readFileSync(user.tokenFile, 'utf8').trim() : undefined;
  return {
    server: cluster.server,
    token: typeof user?.token === 'string' ? user.token : tokenFile,
    ca: pem(cluster, 'certificate-authority'),
    cert: pem(user, 'client-certificate'),
    key: pem(user, 'client-key'),
    insecureSkipVerify: cluster['insecure-skip-tls-verify'] === true,
  };
}

export function resolveTarget(o: { server?: string; kubeconfig?: string }): Target {
  if (o.server) return { server: o.server };
  const path = o.kubeconfig ?? process.env.KUBECONFIG?.split(':').find((p) => p !== '') ?? '.bonsai/kubeconfig';
  return targetFromKubeconfig(path);
}

function send(target: Target, method: string, url: URL, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    };
    const options = { method, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } };
    const req = url.protocol === 'https:'
      ? httpsRequest(url, { ...options, ca: target.ca, cert: target.cert, key: target.key, rejectUnauthorized: !target.insecureSkipVerify }, onResponse)
      : httpRequest(url, options, onResponse);
    req.on('error', reject);
    req.end(body);
  });
}

/** Patches the annotation and returns the line to print. */
export async function setNodeStopped(target: Target, name: string, stopped: boolean): Promise<string> {
  const url = new URL(`${target.server.replace(/\/$/, '')}/api/v1/nodes/${encodeURIComponent(name)}`);
  const body = JSON.stringify({ metadata: { annotations: { [simAnnotations.nodeStopped]: stopped ? 'true' : null } } });
  const headers: Record<string, string> = { 'content-type': 'application/merge-patch+json', accept: 'application/json' };
  if (target.token && !(target.cert && url.protocol === 'https:')) headers.authorization = `Bearer ${target.token}`;
  let res: { status: number; text: string };
  try {
    res = await send(target, 'PATCH', url, headers, body);
  } catch (e) {
    throw new Error(`cannot reach the server at ${target.server}: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (res.status < 200 || res.status >= 300) {
    let status: unknown;
    try {
      status = JSON.parse(res.text);
    } catch {
      status = undefined;
    }
    const reason = isRecord(status) && typeof status.reason === 'string' ? status.reason : `HTTP ${res.status}`;
    const message = isRecord(status) && typeof status.message === 'string' ? status.message : res.text.trim() || `HTTP ${res.status}`;
    throw new Error(`Error from server (${reason}): ${message}`);
  }
  return `node/${name} ${stopped ? 'stopped' : 'started'}`;
}
