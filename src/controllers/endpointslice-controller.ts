// The EndpointSlice controller: for every Service with a selector, EndpointSlices (at most 100 endpoints each,
// one set per port mapping and address type) owned by the Service, listing the selected pods with their
// ready/serving/terminating conditions, node and zone. Existing slices are updated in place where possible.
import type { Node, Pod, Service } from '../generated/k8s/core/v1.js';
import type { Endpoint, EndpointPort, EndpointSlice } from '../generated/k8s/discovery/v1.js';
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
import { keyFor, splitKey } from '../machinery/object-key.js';

export const controllerName = 'endpointslice-controller.k8s.io';
const serviceNameLabel = 'kubernetes.io/service-name';
const managedByLabel = 'endpointslice.kubernetes.io/managed-by';
const zoneLabel = 'topology.kubernetes.io/zone';
const maxEndpointsPerSlice = 100;
const sliceKey = 'discovery.k8s.io/v1/endpointslices';

type AddressType = 'IPv4' | 'IPv6';
type Slice = EndpointSlice & KObject;

/** Endpoints are the same one when they have the same addresses, hostname and pod. */
const endpointId = (e: Endpoint) => JSON.stringify([[...e.addresses].sort(), e.hostname ?? '', e.targetRef?.namespace ?? '', e.targetRef?.name ?? '']);
const endpointSame = (a: Endpoint, b: Endpoint) =>
  a.nodeName === b.nodeName && a.zone === b.zone && a.conditions?.ready === b.conditions?.ready && a.conditions?.serving === b.conditions?.serving
  && a.conditions?.terminating === b.conditions?.terminating && a.targetRef?.uid === b.targetRef?.uid && a.targetRef?.kind === b.targetRef?.kind;
const portsKey = (ports: EndpointPort[] | undefined | null) =>
  JSON.stringify((ports ?? []).map((p) => [p.name ?? '', p.protocol ?? 'TCP', p.port ?? null, p.appProtocol ?? '']).sort());
const ownedBy = (s: Slice, svc: Service) => (s.metadata.ownerReferences ?? []).some((o) => o.uid === svc.metadata?.uid && o.kind === 'Service' && o.apiVersion === 'v1');

function addressTypes(svc: Service): AddressType[] {
  const fams = (svc.spec?.ipFamilies ?? []).filter((f): f is AddressType => f === 'IPv4' || f === 'IPv6');
  if (fams.length) return [...new Set(fams)];
  const ip = svc.spec?.clusterIP;
  if (ip && ip !== 'None') return [isIPv6(ip) ? 'IPv6' : 'IPv4'];
  return ['IPv4', 'IPv6'];
}

/** The slice labels: the Service's own (reserved keys aside), then the reserved ones; and whether the own ones differ. */
function sliceLabels(current: Record<string, string> | undefined, svc: Service): { labels: Record<string, string>; changed: boolean } {
  const reserved = (k: string) => k === serviceNameLabel || k === managedByLabel || k === headlessLabel;
  const own = (l: Record<string, string> | undefined) => Object.fromEntries(Object.entries(l ?? {}).filter(([k]) => !reserved(k)));
  const labels = own(svc.metadata?.labels);
  const changed = !labelsEqual(own(current), labels);
  if (!svc.spec?.clusterIP || svc.spec.clusterIP === 'None') labels[headlessLabel] = '';
  labels[serviceNameLabel] = svc.metadata?.name ?? '';
  labels[managedByLabel] = controllerName;
  return { labels, changed };
}

export const endpointSliceController = defineController({
  name: 'endpointslice',
  for: 'v1/services',
  watches: [
    { resource: 'v1/pods', map: (c, { client }) => servicesForPodChange(client, c) },
    // A managed slice changed or deleted by someone else is put back in shape.
    {
      resource: sliceKey,
      map: (c) => {
        const l = c.object.metadata.labels;
        return l?.[managedByLabel] === controllerName && l[serviceNameLabel] ? [keyFor(c.object.metadata.namespace, l[serviceNameLabel])] : [];
      },
    },
  ],
  setup: ({ client, log }) => new EndpointSliceReconciler(client, log),
});

class EndpointSliceReconciler {
  private readonly triggers = new TriggerTimeTracker();
  private readonly events: EventRecorder;

  constructor(private readonly client: Client, private readonly log: Logger) {
    this.events = new EventRecorder(client, { component: 'endpoint-slice-controller' });
  }

  async reconcile(key: string): Promise<void> {
    const { namespace: ns, name } = splitKey(key);
    const svc = this.client.get('v1/services', ns, name);
    if (!svc) {
      // The garbage collector removes the slices through their owner reference.
      this.triggers.forget(key);
      return;
    }
    const sel = managedSelector(svc);
    if (!sel) return;
    const pods = selectedPods(this.client, svc, sel);
    const existing = (this.client.list(sliceKey, ns) as Slice[]).filter((s) =>
      s.metadata.labels?.[serviceNameLabel] === name && s.metadata.labels?.[managedByLabel] === controllerName && !s.metadata.deletionTimestamp);
    const trigger = this.triggers.compute(key, svc, pods);
    const types = addressTypes(svc);
    const errors: string[] = [];
    const plan = { create: [] as Slice[], update: [] as Slice[], remove: existing.filter((s) => !types.includes(s.addressType as AddressType)) };
    for (const t of types) this.planAddressType(svc, pods, existing.filter((s) => s.addressType === t), t, plan, errors);
    try {
      await this.apply(svc, plan, trigger);
    } catch (e) {
      errors.push(e instanceof Error ? e.message : String(e));
    }
    if (errors.length) {
      const msg = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      this.events.event(svc, 'Warning', 'FailedToUpdateEndpointSlices', `Error updating Endpoint Slices for Service ${ns}/${name}: ${msg}`);
      throw new Error(msg);
    }
  }

  private endpointFor(svc: Service, p: Pod, node: Node | undefined, type: AddressType): Endpoint {
    const serving = isPodReady(p);
    const terminating = !!p.metadata?.deletionTimestamp;
    const zone = node?.metadata?.labels?.[zoneLabel];
    return {
      addresses: podIPs(p).filter((ip) => isIPv6(ip) === (type === 'IPv6')),
      conditions: { ready: svc.spec?.publishNotReadyAddresses === true || (serving && !terminating), serving, terminating },
      ...(shouldSetHostname(p, svc) ? { hostname: p.spec?.hostname } : {}),
      targetRef: { kind: 'Pod', namespace: p.metadata?.namespace, name: p.metadata?.name, uid: p.metadata?.uid },
      ...(p.spec?.nodeName ? { nodeName: p.spec.nodeName } : {}),
      ...(zone ? { zone } : {}),
    };
  }

  private planAddressType(svc: Service, pods: Pod[], existing: Slice[], type: AddressType, plan: { create: Slice[]; update: Slice[]; remove: Slice[] }, errors: string[]): void {
    const ns = svc.metadata?.namespace ?? '';
    const byPorts = new Map<string, Slice[]>();
    for (const s of existing) {
      if (!ownedBy(s, svc)) {
        plan.remove.push(s);
        continue;
      }
      const k = portsKey(s.ports);
      byPorts.set(k, [...(byPorts.get(k) ?? []), s]);
    }
    const desired = new Map<string, { ports: EndpointPort[]; endpoints: Map<string, Endpoint> }>();
    for (const p of pods) {
      if (!shouldPodBeInEndpoints(p, true)) continue;
      const ports: EndpointPort[] = [];
      if (svc.spec?.ports?.length || svc.spec?.clusterIP !== 'None') {
        for (const sp of svc.spec?.ports ?? []) {
          const port = findPort(p, sp);
          if (port !== undefined) ports.push({ name: sp.name ?? '', protocol: sp.protocol ?? 'TCP', port, ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) });
        }
      }
      const node = this.client.get('v1/nodes', '', p.spec?.nodeName ?? '');
      if (!node && !svc.spec?.publishNotReadyAddresses) {
        errors.push(`skipping Pod ${p.metadata?.name} for Service ${ns}/${svc.metadata?.name}: Node ${p.spec?.nodeName ?? ''} Not Found`);
        continue;
      }
      const ep = this.endpointFor(svc, p, node, type);
      if (!ep.addresses.length) continue;
      const k = portsKey(ports);
      let d = desired.get(k);
      if (!d) desired.set(k, (d = { ports, endpoints: new Map() }));
      d.endpoints.set(endpointId(ep), ep);
    }
    const before = plan.create.length;
    const removedBefore = plan.remove.length;
    for (const [k, d] of desired) this.planPortMapping(svc, byPorts.get(k) ?? [], d.endpoints, d.ports, type, plan);
    for (const [k, slices] of byPorts) if (!desired.has(k)) plan.remove.push(...slices);
    // A Service with no endpoints of this type still gets one empty slice, so consumers can tell "none" from "not yet".
    const removedHere = plan.remove.length - removedBefore;
    if (existing.length === removedHere && plan.create.length === before) {
      const placeholder = this.newSlice(svc, [], type);
      const only = plan.remove.length === removedBefore + 1 ? plan.remove[plan.remove.length - 1] : undefined;
      if (only && !only.endpoints?.length && !only.ports?.length && ownedBy(only, svc) && labelsEqual(only.metadata.labels, placeholder.metadata.labels)) plan.remove.pop();
      else plan.create.push(placeholder);
    }
  }

  private planPortMapping(svc: Service, existing: Slice[], want: Map<string, Endpoint>, ports: EndpointPort[], type: AddressType, plan: { create: Slice[]; update: Slice[]; remove: Slice[] }): void {
    const updated: Slice[] = [];
    const unchanged: Slice[] = [];
    // 1. Keep the wanted endpoints of each slice (refreshed), drop the others.
    for (const s of existing) {
      const kept: Endpoint[] = [];
      let changed = false;
      for (const e of s.endpoints ?? []) {
        const w = want.get(endpointId(e));
        if (!w) continue;
        kept.push(w);
        if (!endpointSame(w, e)) changed = true;
        want.delete(endpointId(e));
      }
      const { labels, changed: labelsChanged } = sliceLabels(s.metadata.labels, svc);
      if (changed || kept.length !== (s.endpoints ?? []).length) {
        if (!kept.length) plan.remove.push(s);
        else updated.push({ ...s, metadata: { ...s.metadata, labels }, endpoints: kept });
      } else if (labelsChanged) updated.push({ ...s, metadata: { ...s.metadata, labels }, endpoints: kept });
      else unchanged.push(s);
    }
    const rest = [...want.values()];
    // 2. Fill the slices being updated anyway, fullest first.
    for (const s of [...updated].sort((a, b) => (b.endpoints?.length ?? 0) - (a.endpoints?.length ?? 0))) {
      while (rest.length && s.endpoints.length < maxEndpointsPerSlice) s.endpoints.push(rest.shift()!);
    }
    // 3. Put what is left in the unchanged slice it fills best, or in new slices.
    while (rest.length) {
      let target: Slice | undefined;
      if (rest.length < maxEndpointsPerSlice) {
        let best = maxEndpointsPerSlice;
        for (const s of unchanged) {
          const diff = maxEndpointsPerSlice - (rest.length + (s.endpoints?.length ?? 0));
          if (diff >= 0 && diff < best) [best, target] = [diff, s];
        }
      }
      if (target) {
        unchanged.splice(unchanged.indexOf(target), 1);
        target = { ...target, endpoints: [...(target.endpoints ?? [])] };
        updated.push(target);
      } else {
        target = this.newSlice(svc, ports, type);
        plan.create.push(target);
      }
      while (rest.length && target.endpoints.length < maxEndpointsPerSlice) target.endpoints.push(rest.shift()!);
    }
    plan.update.push(...updated);
  }

  private newSlice(svc: Service, ports: EndpointPort[], type: AddressType): Slice {
    return {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: {
        generateName: `${svc.metadata?.name}-`, namespace: svc.metadata?.namespace, labels: sliceLabels(undefined, svc).labels,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: svc.metadata?.name ?? '', uid: svc.metadata?.uid ?? '', controller: true, blockOwnerDeletion: true }],
      },
      addressType: type, endpoints: [], ports,
    } as Slice;
  }

  /** Writes the plan: creates turn into updates of slices that would be deleted, then creates, updates, deletes. */
  private async apply(svc: Service, plan: { create: Slice[]; update: Slice[]; remove: Slice[] }, trigger: string | undefined): Promise<void> {
    const def = this.client.resource('discovery.k8s.io/v1/endpointslices')!;
    const ns = svc.metadata?.namespace ?? '';
    for (let i = 0; i < plan.remove.length && plan.create.length;) {
      const old = plan.remove[i];
      const fresh = plan.create[plan.create.length - 1];
      if (old.addressType === fresh.addressType && ownedBy(old, svc)) {
        plan.create.pop();
        plan.remove.splice(i, 1);
        plan.update.push({ ...old, metadata: { ...old.metadata, labels: fresh.metadata.labels }, endpoints: fresh.endpoints, ports: fresh.ports });
      } else i++;
    }
    const stamp = (s: Slice): KObject => {
      const annotations = { ...(s.metadata.annotations ?? {}) };
      if (trigger) annotations[lastChangeTriggerTime] = trigger;
      else delete annotations[lastChangeTriggerTime];
      const metadata = { ...s.metadata, annotations };
      if (!Object.keys(annotations).length) delete (metadata as { annotations?: unknown }).annotations;
      // An empty list is stored as absent, as the API server's encoding leaves it.
      return { ...s, metadata, endpoints: s.endpoints?.length ? s.endpoints : null, ports: s.ports?.length ? s.ports : null };
    };
    if (!svc.metadata?.deletionTimestamp) {
      for (const s of plan.create) {
        try {
          await this.client.create(def, ns, stamp(s));
        } catch (e) {
          if (isNamespaceTerminating(e)) return;
          throw new Error(`failed to create EndpointSlice for Service ${ns}/${svc.metadata?.name}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
    }
    for (const s of plan.update) {
      try {
        await this.client.update(def, ns, s.metadata.name ?? '', stamp(s));
      } catch (e) {
        throw new Error(`failed to update ${s.metadata.name} EndpointSlice for Service ${ns}/${svc.metadata?.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    for (const s of plan.remove) {
      try {
        await this.client.delete(def, ns, s.metadata.name ?? '');
      } catch (e) {
        if (e instanceof ApiError && e.code === 404) continue;
        throw new Error(`failed to delete ${s.metadata.name} EndpointSlice for Service ${ns}/${svc.metadata?.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (plan.create.length + plan.update.length + plan.remove.length) {
      this.log.debug({ service: `${ns}/${svc.metadata?.name}`, created: plan.create.length, updated: plan.update.length, deleted: plan.remove.length }, 'synced endpoint slices');
    }
  }
}
