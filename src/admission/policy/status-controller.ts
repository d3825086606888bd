// The status kube-apiserver's policy type checker keeps on each ValidatingAdmissionPolicy: the generation it checked
// and its type-checking result. Expressions are checked when the policy is written (a compile error refuses it), and
// Bonsai's CEL types `object`, `oldObject` and `params` dynamically, so no expression warnings are reported.
import type { Registry } from '../../registry/registry.js';
import type { KObject } from '../../machinery/types.js';
import { ApiError } from '../../machinery/errors.js';
import type { Logger } from '../../util/logger.js';
import { promised } from '../../util/steps.js';

const policiesKey = 'admissionregistration.k8s.io/validatingadmissionpolicies';

interface PolicyStatus {
  observedGeneration?: number;
  typeChecking?: { expressionWarnings?: unknown[] };
}

export function startPolicyStatus(reg: Registry, log: Logger): { stop(): void } {
  const def = reg.findByKind('admissionregistration.k8s.io', 'ValidatingAdmissionPolicy');
  if (!def) return { stop: () => undefined };
  const queued = new Set<string>();
  let stopped = false;
  const sync = (name: string) => {
    queued.delete(name);
    if (stopped) return;
    const cur = reg.getStored(policiesKey, '', name);
    const gen = cur?.metadata.generation;
    if (!cur || gen === undefined || (cur.status as PolicyStatus | undefined)?.observedGeneration === gen) return;
    const failed = (err: unknown) => {
      if (!(err instanceof ApiError && (err.code === 404 || err.code === 409))) log.warn({ err, policy: name }, 'writing the policy status failed');
    };
    promised(() => reg.update(def, '', name, (o): KObject => ({ ...o, status: { ...(o.status as object), observedGeneration: o.metadata.generation, typeChecking: {} } }), { subresource: 'status', webhooks: false })).catch(failed);
  };
  const enqueue = (name: string) => {
    if (queued.has(name)) return;
    queued.add(name);
    setImmediate(() => sync(name));
  };
  const unsubscribe = reg.onChange(policiesKey, (c) => {
    if (c.type !== 'DELETED') enqueue(c.object.metadata.name ?? '');
  });
  for (const p of reg.listStored(policiesKey)) enqueue(p.metadata.name ?? '');
  return {
    stop() {
      stopped = true;
      unsubscribe();
    },
  };
}
