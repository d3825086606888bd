// What a VPA's targetRef selects: the label selector of a well-known controller's spec, or of the scale subresource
// for anything else; the check that the target is a topmost controller (ConfigUnsupported otherwise); and the
// topmost controller of a pod (its chain of controller owner references), which must be the VPA's target.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import { fromLabelSelector, matchesSelector, parseLabelSelector, type Selector } from '../../machinery/labels.js';
import type { KObject, LabelSelector } from '../../machinery/types.js';
import type { Vpa } from './types.js';

/** Kinds whose selector is read from their spec (group/Kind). */
const wellKnown: Record<string, string> = {
  'apps/Deployment': 'apps/v1/deployments',
  'apps/ReplicaSet': 'apps/v1/replicasets',
  'apps/StatefulSet': 'apps/v1/statefulsets',
  'apps/DaemonSet': 'apps/v1/daemonsets',
  'batch/Job': 'batch/v1/jobs',
  'batch/CronJob': 'batch/v1/cronjobs',
  '/ReplicationController': 'v1/replicationcontrollers',
};

/** How deep an owner chain is followed (a loop of owners must not hang the controller). */
const maxOwnerDepth = 10;

export type TargetResult = { selector: Selector } | { error: string };

function groupOf(apiVersion: string | undefined): string | undefined {
  const v = apiVersion ?? '';
  const parts = v.split('/');
  if (parts.length > 2 || parts.some((p) => p === '')) return undefined;
  return parts.length === 2 ? parts[0] : '';
}

function wellKnownKey(kind: string | undefined): string | undefined {
  for (const k of Object.keys(wellKnown)) if (k.endsWith(`/${kind}`)) return k;
  return undefined;
}

/** The target's pod selector, or the message of upstream's ConfigUnsupported condition. */
export function targetSelector(client: Client, vpa: Vpa): TargetResult {
  const ref = vpa.spec?.targetRef;
  const ns = vpa.metadata.namespace ?? '';
  if (!ref || typeof ref.kind !== 'string' || typeof ref.name !== 'string') return { error: 'Cannot read targetRef. Reason: targetRef not defined. If this is a v1beta1 object, switch to v1' };
  const target = `${ref.apiVersion ?? ''}.${ref.kind}/${ref.name}`;
  const known = wellKnownKey(ref.kind);
  let selector: Selector | undefined;
  let obj: KObject | undefined;
  if (known) {
    obj = client.get(wellKnown[known], ns, ref.name);
    if (!obj) return { error: `Cannot read targetRef. Reason: ${ref.kind} ${ns}/${ref.name} does not exist` };
    const spec = (obj.spec ?? {}) as { selector?: unknown; jobTemplate?: { spec?: { template?: { metadata?: { labels?: Record<string, string> } } } } };
    if (known === '/ReplicationController') selector = fromLabelSelector({ matchLabels: (spec.selector ?? {}) as Record<string, string> });
    else if (known === 'batch/CronJob') selector = fromLabelSelector({ matchLabels: spec.jobTemplate?.spec?.template?.metadata?.labels ?? {} });
    else selector = fromLabelSelector(spec.selector as LabelSelector | undefined);
    selector ??= [];
  } else {
    const group = groupOf(ref.apiVersion);
    const def = group === undefined ? undefined : client.resourceForKind(group, ref.kind);
    const last = group === undefined ? `unexpected GroupVersion string: ${ref.apiVersion ?? ''}`
      : !def ? `no matches for kind "${ref.kind}" in group "${group}"`
      : !def.subresources?.includes('scale') ? 'the server could not find the requested resource'
      : undefined;
    obj = def && !last ? client.get(def, ns, ref.name) : undefined;
    const unhandled = (why: string) => ({ error: `Cannot read targetRef. Reason: unhandled targetRef ${ref.apiVersion ?? ''} / ${ref.kind} / ${ref.name}, last error ${why}` });
    if (last) return unhandled(last);
    if (!obj) return unhandled(`${def!.plural}.${def!.group} "${ref.name}" not found`);
    const scale = def!.scale ? def!.scale.get(obj) : obj;
    const text = (scale.status as { selector?: unknown } | undefined)?.selector;
    if (typeof text !== 'string' || text === '') return unhandled(`resource ${ns}/${ref.name} has an empty selector for scale sub-resource`);
    try {
      selector = parseLabelSelector(text);
    } catch (err) {
      return unhandled(err instanceof Error ? err.message : String(err));
    }
  }
  const owner = controllerOwner(obj);
  if (owner && ownerObject(client, ns, owner)) {
    return { error: `The target ${target} has a parent controller but it should point to a topmost well-known or scalable controller` };
  }
  return { selector };
}

function controllerOwner(obj: KObject | Pod | undefined): { apiVersion: string; kind: string; name: string } | undefined {
  const refs = obj?.metadata?.ownerReferences;
  if (!Array.isArray(refs)) return undefined;
  return refs.find((r) => r?.controller === true);
}

function ownerObject(client: Client, ns: string, ref: { apiVersion: string; kind: string; name: string }): KObject | undefined {
  const group = groupOf(ref.apiVersion);
  if (group === undefined) return undefined;
  const def = client.resourceForKind(group, ref.kind);
  return def ? client.get(def, def.namespaced ? ns : '', ref.name) : undefined;
}

/** The topmost existing controller of a pod (kind and name), or undefined when the pod has no controller. */
export function topController(client: Client, pod: Pod, ns = pod.metadata?.namespace ?? ''): { kind: string; name: string } | undefined {
  let ref = controllerOwner(pod);
  if (!ref) return undefined;
  let top = { kind: ref.kind, name: ref.name };
  for (let i = 0; i < maxOwnerDepth; i++) {
    const obj = ownerObject(client, ns, ref);
    const next = controllerOwner(obj);
    if (!obj || !next) break;
    ref = next;
    top = { kind: next.kind, name: next.name };
  }
  return top;
}

export function podMatches(selector: Selector, pod: Pod): boolean {
  return matchesSelector(selector, pod.metadata?.labels ?? {});
}

/** Whether the VPA's targetRef names this controller. */
export function targets(vpa: Vpa, top: { kind: string; name: string } | undefined): boolean {
  return !!top && vpa.spec?.targetRef?.kind === top.kind && vpa.spec?.targetRef?.name === top.name;
}

/** Upstream's tie-break between VPAs matching one pod: the older one, then the smaller name. */
export function stronger(a: Vpa, b: Vpa | undefined): boolean {
  if (!b) return true;
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb;
  return (a.metadata.name ?? '') < (b.metadata.name ?? '');
}
