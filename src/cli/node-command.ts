// `bonsai node stop|start NAME`: stops or starts a simulated node's kubelet on a running server by setting or
// removing the node's bonsai.dev/stopped annotation.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { simAnnotations } from '../kubelet/annotations.js';
import { isRecord } from '../machinery/types.js';

export interface Target {
  server: string;
  token?: string;
}

function named(list: unknown, name: unknown, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list)) return undefined;
  const item: unknown = list.find((x: unknown) => isRecord(x) && x.name === name);
  return isRecord(item) && isRecord(item[field]) ? item[field] : undefined;
}

/** The server URL (and bearer token, if any) of a kubeconfig's current context. */
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
  return { server: cluster.server, token: typeof user?.token === 'string' ? user.token : undefined };
}

export function resolveTarget(o: { server?: string; kubeconfig?: string }): Target {
  if (o.server) return { server: o.server };
  const path = o.kubeconfig ?? process.env.KUBECONFIG?.split(':').find((p) => p !== '') ?? '.bonsai/kubeconfig';
  return targetFromKubeconfig(path);
}

/** Patches the annotation and returns the line to print. */
export async function setNodeStopped(target: Target, name: string, stopped: boolean): Promise<string> {
  const url = `${target.server.replace(/\/$/, '')}/api/v1/nodes/${encodeURIComponent(name)}`;
  const body = { metadata: { annotations: { [simAnnotations.nodeStopped]: stopped ? 'true' : null } } };
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', ...(target.token ? { authorization: `Bearer ${target.token}` } : {}) },
      body: JSON.stringify(body),
    });
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : e instanceof Error ? e.message : String(e);
    throw new Error(`cannot reach the server at ${target.server}: ${cause}`);
  }
  if (!res.ok) {
    const status: unknown = await res.json().catch(() => undefined);
    const reason = isRecord(status) && typeof status.reason === 'string' ? status.reason : res.statusText;
    const message = isRecord(status) && typeof status.message === 'string' ? status.message : `HTTP ${res.status}`;
    throw new Error(`Error from server (${reason}): ${message}`);
  }
  return `node/${name} ${stopped ? 'stopped' : 'started'}`;
}
