// The selector the system default topology spreading counts pods with (upstream's helper.DefaultSelector): the
// selectors of the Services selecting the pod, merged, plus the selector of the ReplicationController, ReplicaSet
// or StatefulSet that controls it (found through its controller reference, not by scanning every one of them).
// Services are looked up through an index by namespace and one of their selector's pairs, so a pod costs the
// Services sharing a label with it rather than every Service of its namespace.
import type { Pod } from '../generated/k8s/core/v1.js';
import { fromLabelSelector, type Requirement } from '../machinery/labels.js';
import type { KObject, LabelSelector } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import type { Informer } from '../client/informer.js';
import { hasOwn } from '../util/own.js';

type MapSelector = Record<string, string> | undefined;
const selectorOf = (o: KObject): MapSelector => (o.spec as { selector?: MapSelector } | undefined)?.selector ?? undefined;

/** `ns/key=value` of one pair of a Service's selector (the first in key order), or none for an empty selector. */
function serviceIndexValue(o: KObject): string | undefined {
  const sel = selectorOf(o);
  if (!sel || typeof sel !== 'object') return undefined;
  let first: string | undefined;
  for (const k of Object.keys(sel)) if (first === undefined || k < first) first = k;
  return first === undefined ? undefined : `${o.metadata.namespace ?? ''}/${first}=${sel[first]}`;
}

function selects(sel: MapSelector, labels: Record<string, string>): sel is Record<string, string> {
  if (!sel || typeof sel !== 'object') return false;
  const keys = Object.keys(sel);
  return keys.length > 0 && keys.every((k) => hasOwn(labels, k) && labels[k] === sel[k]);
}

const controllerKinds: Record<string, string> = {
  'v1/ReplicationController': 'v1/replicationcontrollers',
  'apps/v1/ReplicaSet': 'apps/v1/replicasets',
  'apps/v1/StatefulSet': 'apps/v1/statefulsets',
};

export interface DefaultSelectorLookup {
  selectorFor(pod: Pod): Requirement[] | undefined;
  stop(): void;
}

export function defaultSelectorLookup(client: Client): DefaultSelectorLookup {
  const services: Informer = client.informer('v1/services', { indexes: { selector: serviceIndexValue } });
  return {
    selectorFor(pod) {
      const ns = pod.metadata?.namespace ?? '';
      const labels = (pod.metadata?.labels ?? {}) as Record<string, string>;
      // Merged as a label set: a key two Services name appears once (they agree on its value, both selecting the pod).
      const merged = new Map<string, string>();
      const seen = new Set<KObject>();
      for (const k of Object.keys(labels)) {
        for (const svc of services.byIndex('selector', `${ns}/${k}=${labels[k]}`)) {
          if (seen.has(svc)) continue;
          seen.add(svc);
          const sel = selectorOf(svc);
          if (selects(sel, labels)) for (const key of Object.keys(sel)) merged.set(key, sel[key]);
        }
      }
      const out: Requirement[] = [...merged].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, v]) => ({ key, op: 'Equals', values: [v] }));
      const owner = pod.metadata?.ownerReferences?.find((r) => r.controller === true);
      const resource = owner ? controllerKinds[`${owner.apiVersion}/${owner.kind}`] : undefined;
      const controller = resource ? client.get(resource, ns, owner!.name) : undefined;
      if (controller && (!owner!.uid || controller.metadata.uid === owner!.uid)) {
        if (resource === 'v1/replicationcontrollers') {
          const sel = selectorOf(controller);
          if (sel && typeof sel === 'object') for (const key of Object.keys(sel)) if (!merged.has(key)) out.push({ key, op: 'Equals', values: [sel[key]] });
        } else {
          const ls = (controller.spec as { selector?: LabelSelector } | undefined)?.selector;
          if (ls && (ls.matchLabels || ls.matchExpressions?.length)) out.push(...(fromLabelSelector(ls) ?? []));
        }
      }
      return out.length ? out : undefined;
    },
    stop: () => services.stop(),
  };
}
