// pods/binding: assigns a pod to a node once, as the scheduler does.
import { badRequest, conflict } from '../machinery/errors.js';
import { isRecord, type KObject } from '../machinery/types.js';
import { rfc3339 } from '../util/clock.js';
import type { Registry } from './registry.js';

interface Condition {
  type: string;
  status: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

export function bindPod(reg: Registry, namespace: string, name: string, binding: KObject, dryRun: boolean): KObject {
  const target = binding.target;
  if (!isRecord(target) || typeof target.name !== 'string' || !target.name) throw badRequest('target.name: Required value');
  if (target.kind !== undefined && target.kind !== 'Node' && target.kind !== '') throw badRequest('target.kind: must be empty or Node');
  const def = reg.find('', 'v1', 'pods')!;
  const nodeName = target.name;
  const bound = reg.guaranteedUpdate(def, namespace, name, (cur) => {
    const spec = (cur.spec ?? {}) as { nodeName?: string };
    if (cur.metadata.deletionTimestamp) throw conflict({ group: '', resource: 'pods' }, name, 'pod is being deleted, cannot be assigned to a host');
    if (spec.nodeName) throw conflict({ group: '', resource: 'pods' }, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    spec.nodeName = nodeName;
    cur.spec = spec;
    return cur;
  }, { dryRun, audit: { verb: 'create', subresource: 'binding' } });
  // Upstream sets PodScheduled=True with the node name; the status subresource keeps the two writes apart.
  return dryRun ? bound : setPodScheduled(reg, namespace, name);
}

function setPodScheduled(reg: Registry, namespace: string, name: string): KObject {
  const def = reg.find('', 'v1', 'pods')!;
  return reg.guaranteedUpdate(def, namespace, name, (cur) => {
    const status = (cur.status ?? {}) as { conditions?: Condition[] };
    const conds = (status.conditions ??= []);
    const now = rfc3339(reg.clock.now());
    // The whole condition is replaced: a reason such as Unschedulable or SchedulingGated no longer applies.
    const scheduled: Condition = { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now };
    const i = conds.findIndex((x) => x.type === 'PodScheduled');
    if (i >= 0) conds[i] = scheduled;
    else conds.push(scheduled);
    cur.status = status;
    return cur;
  }, { subresource: 'status', audit: false });
}
