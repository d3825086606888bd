// The environment a container's processes see, built as the kubelet builds it: envFrom (with prefixes), env with
// `$(VAR)` references and valueFrom (ConfigMap and Secret keys, downward-API fields and resources), the service
// link variables of the namespace's Services, and the image's PATH/HOME.
import type { Container, EnvVar, Pod, Service } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import { quantityValue } from '../machinery/resources.js';
import { getOwn } from '../util/own.js';
import { draEnv } from '../kubelet/dra/claim-devices.js';

type Data = Record<string, string>;

function configMapData(client: Client, ns: string, name: string): Data | undefined {
  const cm = client.get<KObject>('v1/configmaps', ns, name);
  if (!cm) return undefined;
  const out: Data = Object.create(null) as Data;
  for (const src of [cm.data, cm.binaryData] as (Record<string, unknown> | undefined)[]) {
    for (const [k, v] of Object.entries(src ?? {})) if (typeof v === 'string') out[k] = src === cm.data ? v : Buffer.from(v, 'base64').toString('utf8');
  }
  return out;
}

function secretData(client: Client, ns: string, name: string): Data | undefined {
  const s = client.get<KObject>('v1/secrets', ns, name);
  if (!s) return undefined;
  const out: Data = Object.create(null) as Data;
  for (const [k, v] of Object.entries((s.data ?? {}) as Record<string, unknown>)) if (typeof v === 'string') out[k] = Buffer.from(v, 'base64').toString('utf8');
  for (const [k, v] of Object.entries((s.stringData ?? {}) as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}

export const secretsOf = { configMapData, secretData };

/** A downward-API field path's value (`metadata.name`, `metadata.labels['k']`, `status.podIP`, ...). */
export function fieldValue(pod: Pod, path: string): string | undefined {
  const m = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (m) {
    const map = pod.metadata?.[m[1] as 'labels' | 'annotations'];
    const v = map ? getOwn(map, m[2]) : undefined;
    return typeof v === 'string' ? v : undefined;
  }
  const labelsOrAnnotations = (map: Record<string, string> | undefined) => Object.entries(map ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('\n');
  switch (path) {
    case 'metadata.name': return pod.metadata?.name;
    case 'metadata.namespace': return pod.metadata?.namespace;
    case 'metadata.uid': return pod.metadata?.uid;
    case 'metadata.labels': return labelsOrAnnotations(pod.metadata?.labels);
    case 'metadata.annotations': return labelsOrAnnotations(pod.metadata?.annotations);
    case 'spec.nodeName': return pod.spec?.nodeName;
    case 'spec.serviceAccountName': return pod.spec?.serviceAccountName ?? 'default';
    case 'status.hostIP': return pod.status?.hostIP;
    case 'status.hostIPs': return (pod.status?.hostIPs ?? []).map((i) => i.ip).join(',');
    case 'status.podIP': return pod.status?.podIP;
    case 'status.podIPs': return (pod.status?.podIPs ?? []).map((i) => i.ip).join(',');
    default: return undefined;
  }
}

/** A resourceFieldRef's value: the container's limit (the node's allocatable when unset) or request, over the divisor. */
export function resourceValue(c: Container | undefined, resource: string, divisor: unknown, nodeAllocatable: Record<string, unknown> | undefined): string | undefined {
  const m = /^(limits|requests)\.(cpu|memory|ephemeral-storage)$/.exec(resource);
  if (!m || !c) return undefined;
  const side = (c.resources?.[m[1] as 'limits' | 'requests'] ?? {}) as Record<string, unknown>;
  let q = getOwn(side, m[2]);
  if (q === undefined && m[1] === 'limits') q = nodeAllocatable ? getOwn(nodeAllocatable, m[2]) : undefined;
  const v = q === undefined ? 0 : quantityValue(q);
  const d = divisor === undefined ? 1 : quantityValue(divisor) || 1;
  return String(Math.ceil(v / d));
}

function expandRefs(v: string, env: Data): string {
  return v.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (all, n: string | undefined) => (n === undefined ? '$' : getOwn(env, n) !== undefined ? env[n] : all));
}

/** Service link variables for one Service (`WEB_SERVICE_HOST`, `WEB_PORT_80_TCP_ADDR`, ...). */
export function serviceLinkVars(svc: Service, out: [string, string][]): void {
  const ip = svc.spec?.clusterIP;
  if (!ip || ip === 'None') return;
  const name = (svc.metadata?.name ?? '').toUpperCase().replace(/-/g, '_');
  const ports = svc.spec?.ports ?? [];
  if (!ports.length) return;
  out.push([`${name}_SERVICE_HOST`, ip], [`${name}_SERVICE_PORT`, String(ports[0].port)]);
  for (const p of ports) if (p.name) out.push([`${name}_SERVICE_PORT_${p.name.toUpperCase().replace(/-/g, '_')}`, String(p.port)]);
  const proto0 = (ports[0].protocol ?? 'TCP').toLowerCase();
  out.push([`${name}_PORT`, `${proto0}://${ip}:${ports[0].port}`]);
  for (const p of ports) {
    const proto = p.protocol ?? 'TCP';
    const base = `${name}_PORT_${p.port}_${proto}`;
    out.push([base, `${proto.toLowerCase()}://${ip}:${p.port}`], [`${base}_PROTO`, proto.toLowerCase()], [`${base}_PORT`, String(p.port)], [`${base}_ADDR`, ip]);
  }
}

/** The container's environment, in the order `env` prints it. */
export function containerEnv(client: Client, pod: Pod, c: Container): [string, string][] {
  const ns = pod.metadata?.namespace ?? 'default';
  const env: Data = Object.create(null) as Data;
  const order: string[] = [];
  const set = (k: string, v: string) => {
    if (getOwn(env, k) === undefined) order.push(k);
    env[k] = v;
  };
  set('PATH', '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  set('HOSTNAME', pod.spec?.hostname ?? pod.metadata?.name ?? '');
  for (const src of c.envFrom ?? []) {
    const data = src.configMapRef ? configMapData(client, ns, src.configMapRef.name ?? '') : src.secretRef ? secretData(client, ns, src.secretRef.name ?? '') : undefined;
    for (const [k, v] of Object.entries(data ?? {})) {
      const key = `${src.prefix ?? ''}${k}`;
      if (/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(key)) set(key, v);
    }
  }
  const node = pod.spec?.nodeName ? client.get<KObject>('v1/nodes', '', pod.spec.nodeName) : undefined;
  const alloc = (node?.status as { allocatable?: Record<string, unknown> } | undefined)?.allocatable;
  for (const e of (c.env ?? []) as EnvVar[]) {
    let v: string | undefined;
    const from = e.valueFrom;
    if (e.value !== undefined || !from) v = expandRefs(e.value ?? '', env);
    else if (from.configMapKeyRef) v = getOwnString(configMapData(client, ns, from.configMapKeyRef.name ?? ''), from.configMapKeyRef.key);
    else if (from.secretKeyRef) v = getOwnString(secretData(client, ns, from.secretKeyRef.name ?? ''), from.secretKeyRef.key);
    else if (from.fieldRef) v = fieldValue(pod, from.fieldRef.fieldPath);
    else if (from.resourceFieldRef) {
      const target = from.resourceFieldRef.containerName ? (pod.spec?.containers ?? []).find((x) => x.name === from.resourceFieldRef!.containerName) : c;
      v = resourceValue(target, from.resourceFieldRef.resource, from.resourceFieldRef.divisor, alloc);
    }
    if (v !== undefined) set(e.name, v);
  }
  const links: [string, string][] = [];
  if (pod.spec?.enableServiceLinks !== false) for (const svc of client.list<Service>('v1/services', ns)) if (!(ns === 'default' && svc.metadata?.name === 'kubernetes')) serviceLinkVars(svc, links);
  const master = client.get<Service>('v1/services', 'default', 'kubernetes');
  if (master) serviceLinkVars(master, links);
  for (const [k, v] of links) if (getOwn(env, k) === undefined) set(k, v);
  for (const [k, v] of draEnv(client, pod, c)) set(k, v);
  if (getOwn(env, 'HOME') === undefined) set('HOME', '/root');
  return order.map((k) => [k, env[k]]);
}

function getOwnString(d: Data | undefined, key: string): string | undefined {
  const v = d ? getOwn(d, key) : undefined;
  return typeof v === 'string' ? v : undefined;
}
