// The resource metrics API (metrics.k8s.io/v1beta1) as metrics-server serves it: NodeMetrics and PodMetrics,
// read-only (get and list), computed on demand; `kubectl top` and the HPA read it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Node, Pod } from '../generated/k8s/core/v1.js';
import { ApiError, methodNotAllowed, notFound } from '../machinery/errors.js';
import { parseFieldSelector, type FieldRequirement } from '../machinery/fields.js';
import { quantityValue } from '../machinery/resources.js';
import { matchesSelector, parseLabelSelector } from '../machinery/labels.js';
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/resource.js';
import { formatBytes, formatNanoCores, nodeMetrics, podMetrics, podUsageByNode, type NodeMetrics, type PodMetrics } from '../kubelet/metrics-data.js';
import { outputFormat, partialBody } from './output.js';
import { sendList } from './list-stream.js';
import { bool, query, str } from './query.js';
import { pathNotFound, type RequestInfo } from './request-info.js';

export const metricsGroup = 'metrics.k8s.io';
export const metricsVersion = 'v1beta1';
const apiVersion = `${metricsGroup}/${metricsVersion}`;

/** Discovery entries only: these resources are never stored; metrics-server names no singular. */
export const metricsResources: ResourceDef[] = [
  { group: metricsGroup, version: metricsVersion, kind: 'NodeMetrics', plural: 'nodes', singular: '', namespaced: false, verbs: ['get', 'list'], computed: true },
  { group: metricsGroup, version: metricsVersion, kind: 'PodMetrics', plural: 'pods', singular: '', namespaced: true, verbs: ['get', 'list'], computed: true },
];

/** The not-found errors metrics-server answers: the object itself is missing, or it has no metrics. */
const noPod = (name: string) => notFound({ group: '', resource: 'pods' }, name);
const noNode = (name: string) => notFound({ group: '', resource: 'node' }, name);
const noPodMetrics = (ns: string, name: string) => notFound({ group: metricsGroup, resource: 'podmetrics' }, `${ns}/${name}`);
const noNodeMetrics = (name: string) => notFound({ group: metricsGroup, resource: 'nodemetrics' }, name);

export interface Selection {
  labels: ReturnType<typeof parseLabelSelector>;
  fields: FieldRequirement[];
}

function selected(sel: Selection, obj: KObject, namespaced: boolean): boolean {
  if (!matchesSelector(sel.labels, obj.metadata.labels)) return false;
  for (const f of sel.fields) {
    // Only object metadata fields are known; any other field reads as empty, as in metrics-server.
    const v = f.field === 'metadata.name' ? obj.metadata.name : namespaced && f.field === 'metadata.namespace' ? obj.metadata.namespace : '';
    if (f.negate ? v === f.value : v !== f.value) return false;
  }
  return true;
}

export function listPodMetrics(reg: Registry, namespace: string | undefined, sel: Selection = { labels: [], fields: [] }): PodMetrics[] {
  const pods = reg.store.list('core/pods', namespace);
  const out: PodMetrics[] = [];
  for (const p of pods) {
    if (!selected(sel, p, true)) continue;
    const m = podMetrics(reg, p);
    if (m) out.push(m);
  }
  return out.sort((a, b) => (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

export function listNodeMetrics(reg: Registry, sel: Selection = { labels: [], fields: [] }): NodeMetrics[] {
  const byNode = podUsageByNode(reg);
  const out: NodeMetrics[] = [];
  for (const n of reg.store.list('core/nodes')) {
    if (!selected(sel, n, false)) continue;
    const m = nodeMetrics(reg, n, byNode);
    if (m) out.push(m);
  }
  return out.sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

export function getPodMetrics(reg: Registry, namespace: string, name: string): PodMetrics {
  const pod = reg.store.get('core/pods', namespace, name);
  if (!pod) throw noPod(name);
  const m = podMetrics(reg, pod);
  if (!m) throw noPodMetrics(namespace, name);
  return m;
}

export function getNodeMetrics(reg: Registry, name: string): NodeMetrics {
  const node = reg.store.get('core/nodes', '', name);
  if (!node) throw noNode(name);
  const m = nodeMetrics(reg, node);
  if (!m) throw noNodeMetrics(name);
  return m;
}

function usageOf(m: PodMetrics | NodeMetrics): { cpu: string; memory: string } {
  if (!Array.isArray(m.containers)) return (m as NodeMetrics).usage;
  // A pod's row sums its containers, as metrics-server's table does.
  let cpu = 0;
  let memory = 0;
  for (const c of (m as PodMetrics).containers) {
    cpu += Math.round(quantityValue(c.usage.cpu) * 1e9);
    memory += quantityValue(c.usage.memory);
  }
  return { cpu: formatNanoCores(cpu), memory: formatBytes(memory) };
}

function tableRow(m: PodMetrics | NodeMetrics, includeObject: string): Record<string, unknown> {
  const u = usageOf(m);
  const row: Record<string, unknown> = { cells: [m.metadata.name, u.cpu, u.memory, m.window] };
  if (includeObject === 'Object') row.object = m;
  else if (includeObject !== 'None') row.object = partialBody(m);
  return row;
}

/** A Table's fields before its rows. */
function tableHead(count: number): Record<string, unknown> {
  // metrics-server declares the columns from the first item, so an empty list has none.
  const columnDefinitions = count ? [
    { name: 'Name', type: 'string', format: 'name', description: 'Name of the resource', priority: 0 },
    { name: 'cpu', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'memory', type: 'string', format: 'quantity', description: '', priority: 0 },
    { name: 'Window', type: 'string', format: 'duration', description: '', priority: 0 },
  ] : [];
  return { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: {}, columnDefinitions };
}

function selection(req: FastifyRequest): Selection {
  const q = query(req);
  return { labels: parseLabelSelector(str(q, 'labelSelector') ?? ''), fields: parseFieldSelector(str(q, 'fieldSelector') ?? '') };
}

/** Serves a request under /apis/metrics.k8s.io/<version>/ (discovery is served with the other groups). */
export function handleMetrics(reg: Registry, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void {
  const resource = info.resource;
  if (info.version !== metricsVersion || (resource !== 'nodes' && resource !== 'pods')) throw pathNotFound();
  if (info.subresource !== undefined || info.watchPath || (resource === 'nodes' && info.namespace !== undefined)) throw pathNotFound();
  if (req.method !== 'GET') throw methodNotAllowed();
  const q = query(req);
  if (bool(q, 'watch')) throw new ApiError(405, 'MethodNotAllowed', `watch is not supported on resources of kind "${resource}.${metricsGroup}"`, { group: metricsGroup, kind: resource });
  const fmt = outputFormat(req.headers.accept);
  const includeObject = str(q, 'includeObject') ?? 'Metadata';
  const kind = resource === 'nodes' ? 'NodeMetrics' : 'PodMetrics';
  if (info.name !== undefined) {
    const m = resource === 'nodes' ? getNodeMetrics(reg, info.name) : getPodMetrics(reg, info.namespace ?? '', info.name);
    if (fmt === 'table') reply.send({ ...tableHead(1), rows: [tableRow(m, includeObject)] });
    else if (fmt === 'partial') reply.send(partialBody(m));
    else reply.send({ kind, apiVersion, ...m });
    return;
  }
  const sel = selection(req);
  const items: Array<PodMetrics | NodeMetrics> = resource === 'nodes' ? listNodeMetrics(reg, sel) : listPodMetrics(reg, info.namespace, sel);
  // Streamed as any list is: never one string, whatever the number of pods.
  if (fmt === 'table') {
    sendList(req, reply, { head: tableHead(items.length), field: 'rows', count: items.length, entry: (i) => JSON.stringify(tableRow(items[i], includeObject)) });
  } else if (fmt === 'partial') {
    sendList(req, reply, { head: { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion: '' } }, field: 'items', count: items.length, entry: (i) => JSON.stringify(partialBody(items[i])) });
  } else {
    sendList(req, reply, { head: { kind: `${kind}List`, apiVersion, metadata: {} }, field: 'items', count: items.length, entry: (i) => JSON.stringify(items[i]) });
  }
}
