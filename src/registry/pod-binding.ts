// pods/binding: assigns a pod to a node once, as the scheduler does. As kube-apiserver's binding storage, the node
// name, the binding's annotations and the PodScheduled=True condition go to the pod in one write (one watch event).
import { badRequest, conflict, type FieldError } from '../machinery/errors.js';
import { isRecord, unpinned, type KObject } from '../machinery/types.js';
import { hasOwn } from '../util/own.js';
import { rfc3339 } from '../util/clock.js';
import type { Registry } from './registry.js';

interface Condition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

/** The binding's annotations (string values only), copied onto the pod as upstream does; none when malformed. */
function bindingAnnotations(binding: KObject): Array<[string, string]> {
  const ann = isRecord(binding.metadata) ? binding.metadata.annotations : undefined;
  if (!isRecord(ann)) return [];
  const out: Array<[string, string]> = [];
  for (const k of Object.keys(ann)) if (hasOwn(ann, k) && typeof ann[k] === 'string') out.push([k, ann[k] as string]);
  return out;
}

/** Binds the pod to the binding's node: the bound pod (a promise of it on a store that waits, etcd). */
export function bindPod(reg: Registry, namespace: string, name: string, binding: KObject, dryRun: boolean): KObject | Promise<KObject> {
  const target = binding.target;
  if (!isRecord(target) || typeof target.name !== 'string' || !target.name) throw badRequest('target.name: Required value');
  if (target.kind !== undefined && target.kind !== 'Node' && target.kind !== '') throw badRequest('target.kind: must be empty or Node');
  const def = reg.find('', 'v1', 'pods')!;
  const nodeName = target.name;
  const annotations = bindingAnnotations(binding);
  return reg.update(def, namespace, name, (cur) => {
    // `cur` is a copy of the stored pod: it is changed in place and given to the write (`owned`).
    const spec = (cur.spec ?? {}) as { nodeName?: string; schedulingGates?: unknown[] };
    // Upstream answers what stops an assignment as a conflict on pods/binding.
    const refuse = (why: string) => conflict({ group: '', resource: 'pods/binding' }, name, why);
    if (cur.metadata.deletionTimestamp) throw refuse(`pod ${name} is being deleted, cannot be assigned to a host`);
    if (spec.nodeName) throw refuse(`pod ${name} is already assigned to node "${spec.nodeName}"`);
    // A gated pod is not ready for scheduling: nobody may bind it until its gates are removed.
    if (Array.isArray(spec.schedulingGates) && spec.schedulingGates.length) throw refuse(`pod ${name} has non-empty .spec.schedulingGates`);
    spec.nodeName = nodeName;
    cur.spec = spec;
    if (annotations.length) {
      const own: Record<string, string> = Object.create(null) as Record<string, string>;
      Object.assign(own, cur.metadata.annotations ?? {});
      for (const [k, v] of annotations) own[k] = v;
      cur.metadata.annotations = { ...own };
    }
    setScheduled(cur, rfc3339(reg.clock.now()));
    // A pod changed meanwhile is judged again (bound meanwhile: "already assigned").
    return unpinned(cur);
  }, { dryRun, owned: true, subresource: 'binding', audit: { verb: 'create', subresource: 'binding' }, webhooks: false });
}

/** PodScheduled=True, replacing the whole condition: a reason such as Unschedulable or SchedulingGated no longer applies. */
function setScheduled(pod: KObject, now: string): void {
  const status = (pod.status ?? {}) as { conditions?: Condition[] };
  const conds = (status.conditions ??= []);
  const i = conds.findIndex((x) => x.type === 'PodScheduled');
  const keep = i >= 0 && conds[i].status === 'True' && conds[i].lastTransitionTime ? conds[i].lastTransitionTime : now;
  const scheduled: Condition = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: keep };
  if (i >= 0) conds[i] = scheduled;
  else conds.push(scheduled);
  pod.status = status;
}

/**
 * The binding's write (a partial write only bindPod makes, never served over HTTP): the stored pod with the spec
 * (the node name), annotations and status the binding's mutation set on its own copy of it.
 */
export function boundPod(cur: KObject, next: KObject): KObject {
  const metadata = { ...cur.metadata };
  if (next.metadata?.annotations) metadata.annotations = next.metadata.annotations;
  return { ...cur, metadata, spec: next.spec, status: next.status };
}

/** Nothing of the pod but its node name changes, and the binding was checked already. */
export function validateBoundPod(): FieldError[] {
  return [];
}
