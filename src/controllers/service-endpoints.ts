// What the Endpoints and EndpointSlice controllers share: which pods back a Service, how a Service port resolves
// to a pod's port, which services a pod change concerns, and the last-change trigger time of an endpoints set.
import type { ContainerPort, Pod, Service, ServicePort } from '../generated/k8s/core/v1.js';
import { ApiError } from '../machinery/errors.js';
import { isPodReady } from '../machinery/conditions.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { Change } from '../client/types.js';

export const lastChangeTriggerTime = 'endpoints.kubernetes.io/last-change-trigger-time';
export const headlessLabel = 'service.kubernetes.io/headless';

const readyCondition = (p: Pod) => p.status?.conditions?.find((c) => c.type === 'Ready');
const isTerminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** The pod's IPs (podIPs, else podIP). */
export function podIPs(p: Pod): string[] {
  const list = (p.status?.podIPs ?? []).map((x) => x.ip).filter((ip): ip is string => !!ip);
  if (list.length) return list;
  return p.status?.podIP ? [p.status.podIP] : [];
}

export const isIPv6 = (ip: string) => ip.includes(':');

/** A pod belongs in a Service's endpoints when it has an IP, is not terminal and (unless tolerated) not terminating. */
export function shouldPodBeInEndpoints(p: Pod, includeTerminating: boolean): boolean {
  if (isTerminal(p)) return false;
  if (!podIPs(p).length) return false;
  return includeTerminating || !p.metadata?.deletionTimestamp;
}

/** The hostname is published for pods that name the Service as their subdomain. */
export const shouldSetHostname = (p: Pod, svc: Service) =>
  !!p.spec?.hostname && p.spec.subdomain === svc.metadata?.name && p.metadata?.namespace === svc.metadata?.namespace;

/** The Service's selector when the controllers manage its endpoints (not ExternalName, a non-empty selector). */
export function managedSelector(svc: Service): Record<string, string> | undefined {
  if (svc.spec?.type === 'ExternalName') return undefined;
  const sel = svc.spec?.selector;
  return sel && Object.keys(sel).length ? sel : undefined;
}

export function selectorMatches(sel: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  for (const [k, v] of Object.entries(sel)) if (labels?.[k] !== v) return false;
  return true;
}

/** The pods of the Service's namespace its selector matches. */
export function selectedPods(client: Client, svc: Service, sel: Record<string, string>): Pod[] {
  return (client.list('v1/pods', svc.metadata?.namespace)).filter((p) => selectorMatches(sel, p.metadata?.labels));
}

/** The pod port a Service port targets: a number as is, a name looked up in the containers (and sidecars) ports. */
export function findPort(p: Pod, sp: ServicePort): number | undefined {
  const target = sp.targetPort ?? sp.port;
  if (typeof target === 'number') return target;
  if (/^\d+$/.test(target)) return Number(target);
  const proto = sp.protocol ?? 'TCP';
  const match = (ports: ContainerPort[] | undefined) => ports?.find((cp) => cp.name === target && (cp.protocol ?? 'TCP') === proto)?.containerPort;
  for (const c of p.spec?.containers ?? []) {
    const n = match(c.ports);
    if (n !== undefined) return n;
  }
  for (const c of p.spec?.initContainers ?? []) {
    if (c.restartPolicy !== 'Always') continue;
    const n = match(c.ports);
    if (n !== undefined) return n;
  }
  return undefined;
}

/** True when a pod change can alter the endpoints of the services selecting it. */
function podEndpointsChanged(a: Pod, b: Pod): boolean {
  // Stored versions share the subtrees a write left alone (the labels, through a status write): compared at once.
  const same = (x: unknown, y: unknown) => x === y || JSON.stringify(x ?? null) === JSON.stringify(y ?? null);
  return !same(a.metadata?.labels, b.metadata?.labels) || a.spec?.hostname !== b.spec?.hostname || a.spec?.subdomain !== b.spec?.subdomain
    || a.metadata?.deletionTimestamp !== b.metadata?.deletionTimestamp || isPodReady(a) !== isPodReady(b)
    || !same(podIPs(a), podIPs(b)) || a.status?.phase !== b.status?.phase || a.spec?.nodeName !== b.spec?.nodeName;
}

/** `ns/name` keys of the services a pod change concerns: those selecting the pod before or after it. */
export function servicesForPodChange(client: Client, c: Change): string[] {
  const cur = c.object;
  const prev = c.previous;
  if (c.type === 'MODIFIED' && prev && !podEndpointsChanged(prev, cur)) return [];
  const ns = c.object.metadata.namespace ?? '';
  const out: string[] = [];
  for (const s of client.list('v1/services', ns)) {
    const sel = managedSelector(s);
    if (!sel) continue;
    if (selectorMatches(sel, cur.metadata?.labels) || (prev && selectorMatches(sel, prev.metadata?.labels))) out.push(`${ns}/${s.metadata?.name}`);
  }
  return out;
}

export const isNamespaceTerminating = (err: unknown) =>
  err instanceof ApiError && (err.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating');

export const labelsEqual = (a: Record<string, string> | undefined, b: Record<string, string> | undefined) => {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b ?? {}).length && ka.every((k) => b?.[k] === a?.[k]);
};

export const metaOf = (o: Pod | Service) => o.metadata as KObject['metadata'];

/**
 * The time of the change an endpoints update publishes: for a newly seen Service its creation, afterwards the
 * earliest Ready transition (or Service creation) that changed since the previous sync; undefined when none did.
 */
export class TriggerTimeTracker {
  private readonly states = new Map<string, { service: string; pods: Map<string, string> }>();

  compute(key: string, svc: Service, pods: Pod[]): string | undefined {
    const prev = this.states.get(key);
    let min: string | undefined;
    const earlier = (t: string) => (min === undefined || Date.parse(t) < Date.parse(min) ? t : min);
    const podTimes = new Map<string, string>();
    for (const p of pods) {
      const t = readyCondition(p)?.lastTransitionTime;
      if (!t) continue;
      podTimes.set(p.metadata?.name ?? '', t);
      const before = prev?.pods.get(p.metadata?.name ?? '');
      if (!before || Date.parse(t) > Date.parse(before)) min = earlier(t);
    }
    const svcTime = svc.metadata?.creationTimestamp ?? '';
    if (svcTime && (!prev || Date.parse(svcTime) > Date.parse(prev.service))) min = earlier(svcTime);
    this.states.set(key, { service: svcTime, pods: podTimes });
    return prev ? min : svcTime || undefined;
  }

  forget(key: string): void {
    this.states.delete(key);
  }
}
