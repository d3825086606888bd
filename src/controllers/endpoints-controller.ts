// The Endpoints controller: for every Service with a selector, an Endpoints object of the same name listing the
// selected pods' addresses (ready and not ready) grouped by the ports they serve.
import type { EndpointAddress, EndpointPort, EndpointSubset, Endpoints, Pod, Service } from '../generated/k8s/core/v1.js';
import { EventRecorder } from '../client/event-recorder.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { Logger } from '../util/logger.js';
import { defineController } from './runtime/index.js';
import { isPodReady } from '../machinery/conditions.js';
import {
  findPort, headlessLabel, isIPv6, isNamespaceTerminating, labelsEqual, lastChangeTriggerTime, managedSelector, podIPs,
  selectedPods, servicesForPodChange, shouldPodBeInEndpoints, shouldSetHostname, TriggerTimeTracker,
} from './service-endpoints.js';
import { keyOf, splitKey } from '../machinery/object-key.js';

/** Endpoints hold at most this many addresses; beyond it they are truncated and annotated. */
const maxCapacity = 1000;
const overCapacity = 'endpoints.kubernetes.io/over-capacity';
const leaderAnnotation = 'control-plane.alpha.kubernetes.io/leader';

interface Entry {
  address: EndpointAddress;
  ready: boolean;
  port?: EndpointPort;
}

const addrKey = (a: EndpointAddress) => `${a.ip}|${a.targetRef?.uid ?? ''}`;
const byAddress = (a: EndpointAddress, b: EndpointAddress) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : (a.targetRef?.uid ?? '').localeCompare(b.targetRef?.uid ?? ''));
const portKey = (p: EndpointPort) => JSON.stringify([p.name ?? '', p.port, p.protocol ?? '', p.appProtocol ?? '']);

/**
 * Packs per-address, per-port entries into the canonical subsets: ports that share exactly the same addresses
 * (with the same readiness) form one subset; an address not ready on a port is not ready there.
 */
export function repackSubsets(entries: Entry[]): EndpointSubset[] {
  const ports = new Map<string, { port?: EndpointPort; addrs: Map<string, { address: EndpointAddress; ready: boolean }> }>();
  for (const e of entries) {
    const pk = e.port ? portKey(e.port) : '';
    let g = ports.get(pk);
    if (!g) ports.set(pk, (g = { port: e.port, addrs: new Map() }));
    const k = addrKey(e.address);
    const seen = g.addrs.get(k);
    if (!seen) g.addrs.set(k, { address: e.address, ready: e.ready });
    else seen.ready &&= e.ready;
  }
  const groups = new Map<string, { ports: EndpointPort[]; addrs: Array<{ address: EndpointAddress; ready: boolean }> }>();
  for (const g of ports.values()) {
    const addrs = [...g.addrs.values()].sort((a, b) => byAddress(a.address, b.address));
    const key = addrs.map((a) => `${addrKey(a.address)}|${a.ready}`).join(',');
    let group = groups.get(key);
    if (!group) groups.set(key, (group = { ports: [], addrs }));
    if (g.port) group.ports.push(g.port);
  }
  const subsets = [...groups.values()].map((g) => {
    const ready = g.addrs.filter((a) => a.ready).map((a) => a.address);
    const notReady = g.addrs.filter((a) => !a.ready).map((a) => a.address);
    const ports = g.ports.sort((a, b) => (a.port ?? 0) - (b.port ?? 0) || (a.name ?? '').localeCompare(b.name ?? ''));
    return { ...(ready.length ? { addresses: ready } : {}), ...(notReady.length ? { notReadyAddresses: notReady } : {}), ...(ports.length ? { ports } : {}) };
  });
  return subsets.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
}

/** Cuts the subsets down to maxCapacity addresses, keeping ready ones first; true when something was cut. */
function truncate(subsets: EndpointSubset[]): boolean {
  const ready = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0), 0);
  const notReady = subsets.reduce((n, s) => n + (s.notReadyAddresses?.length ?? 0), 0);
  if (ready + notReady <= maxCapacity) return false;
  const cutReady = ready > maxCapacity;
  const room = cutReady ? maxCapacity : maxCapacity - ready;
  const total = cutReady ? ready : notReady;
  let left = room;
  for (const s of subsets) {
    const list = cutReady ? s.addresses ?? [] : s.notReadyAddresses ?? [];
    const take = Math.min(Math.ceil((list.length / total) * room), left);
    const kept = list.slice(0, take);
    left -= kept.length;
    if (cutReady) {
      s.addresses = kept;
      delete s.notReadyAddresses;
    } else s.notReadyAddresses = kept;
  }
  return true;
}

export const endpointsController = defineController({
  name: 'endpoints',
  for: 'v1/services',
  watches: [
    { resource: 'v1/pods', map: (c, { client }) => servicesForPodChange(client, c) },
    { resource: 'v1/endpoints', when: (c) => c.type === 'DELETED', map: (c) => [keyOf(c.object)] },
  ],
  // Endpoints left without a Service (deleted while the controller was down) are found once at start.
  initialKeys: ({ client }) => [
    ...client.list('v1/services').map(keyOf),
    ...client.list('v1/endpoints').filter((e) => !e.metadata.annotations?.[leaderAnnotation]).map(keyOf),
  ],
  setup: (ctx) => new EndpointsReconciler(ctx.client, ctx.log),
});

class EndpointsReconciler {
  private readonly triggers = new TriggerTimeTracker();
  private readonly events: EventRecorder;

  constructor(private readonly client: Client, private readonly log: Logger) {
    this.events = new EventRecorder(client, { component: 'endpoint-controller' });
  }

  async reconcile(key: string): Promise<void> {
    const { namespace: ns, name } = splitKey(key);
    // The API server itself keeps the `kubernetes` Service's endpoints.
    if (ns === 'default' && name === 'kubernetes') return;
    const def = this.client.resource('v1/endpoints')!;
    const svc = this.client.get('v1/services', ns, name);
    if (!svc) {
      this.triggers.forget(key);
      if (this.client.get('v1/endpoints', ns, name)) {
        try {
          await this.client.delete(def, ns, name);
        } catch (e) {
          if (!(e instanceof ApiError && e.code === 404)) throw e;
        }
      }
      return;
    }
    const sel = managedSelector(svc);
    if (!sel) return;
    const pods = selectedPods(this.client, svc, sel);
    const trigger = this.triggers.compute(key, svc, pods);
    const subsets = repackSubsets(this.entries(svc, pods));

    const current = this.client.get('v1/endpoints', ns, name);
    const labels: Record<string, string> = { ...(svc.metadata?.labels ?? {}) };
    delete labels[headlessLabel];
    const headless = !svc.spec?.clusterIP || svc.spec.clusterIP === 'None';
    if (headless) labels[headlessLabel] = '';
    const count = subsets.reduce((n, s) => n + (s.addresses?.length ?? 0) + (s.notReadyAddresses?.length ?? 0), 0);
    if (current && JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets) && labelsEqual(current.metadata?.labels, labels)
      && (count <= maxCapacity) === !current.metadata?.annotations?.[overCapacity]) return;

    const annotations: Record<string, string> = { ...(current?.metadata?.annotations ?? {}) };
    if (trigger) annotations[lastChangeTriggerTime] = trigger;
    else delete annotations[lastChangeTriggerTime];
    if (truncate(subsets)) annotations[overCapacity] = 'truncated';
    else delete annotations[overCapacity];
    const meta: Record<string, unknown> = { ...(current?.metadata ?? { name, namespace: ns }), labels, annotations };
    if (!Object.keys(labels).length) delete meta.labels;
    if (!Object.keys(annotations).length) delete meta.annotations;
    const next = { apiVersion: 'v1', kind: 'Endpoints', metadata: meta, ...(subsets.length ? { subsets } : {}) };
    try {
      if (current) await this.client.update(def, ns, name, next);
      else await this.client.create(def, ns, next);
      this.log.debug({ service: key, endpoints: count }, current ? 'updated endpoints' : 'created endpoints');
    } catch (e) {
      if (!current && isNamespaceTerminating(e)) return;
      const why = e instanceof Error ? e.message : String(e);
      if (current) this.events.event(next, 'Warning', 'FailedToUpdateEndpoint', `Failed to update endpoint ${ns}/${name}: ${why}`);
      else this.events.event(next, 'Warning', 'FailedToCreateEndpoint', `Failed to create endpoint for service ${ns}/${name}: ${why}`);
      throw e;
    }
  }

  /** One entry per (pod address, service port), or per address for a headless Service without ports. */
  private entries(svc: Service, pods: Pod[]): Entry[] {
    const tolerate = svc.spec?.publishNotReadyAddresses === true;
    const family = svc.spec?.ipFamilies?.[0] ?? (svc.spec?.clusterIP && svc.spec.clusterIP !== 'None' && isIPv6(svc.spec.clusterIP) ? 'IPv6' : undefined);
    const out: Entry[] = [];
    for (const p of pods) {
      if (!shouldPodBeInEndpoints(p, tolerate)) continue;
      const ips = podIPs(p);
      const ip = family ? ips.find((x) => isIPv6(x) === (family === 'IPv6')) : ips[0];
      if (!ip) continue;
      const address: EndpointAddress = {
        ip, ...(shouldSetHostname(p, svc) ? { hostname: p.spec?.hostname } : {}), nodeName: p.spec?.nodeName,
        targetRef: { kind: 'Pod', namespace: p.metadata?.namespace, name: p.metadata?.name, uid: p.metadata?.uid },
      };
      if (!address.nodeName) delete address.nodeName;
      const ready = tolerate || isPodReady(p);
      const ports = svc.spec?.ports ?? [];
      if (!ports.length) {
        if (svc.spec?.clusterIP === 'None') out.push({ address, ready });
        continue;
      }
      for (const sp of ports) {
        const port = findPort(p, sp);
        if (port === undefined) continue;
        out.push({ address, ready, port: { ...(sp.name ? { name: sp.name } : {}), port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) } });
      }
    }
    return out;
  }
}
