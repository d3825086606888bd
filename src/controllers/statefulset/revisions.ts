// StatefulSet revisions: each ControllerRevision holds a strategic merge patch that replaces spec.template
// (`{"spec":{"template":{..., "$patch":"replace"}}}`), which is what `kubectl rollout undo` sends back to the set.
// The current and update revisions are found or created here (upstream getStatefulSetRevisions).
import type { ControllerRevision, StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { PodTemplateSpec } from '../../generated/k8s/core/v1.js';
import type { KObject } from '../../machinery/types.js';
import { isRecord } from '../../machinery/types.js';
import { canonicalJson } from '../workload/hash.js';
import { History } from '../workload/history.js';
import type { Steps } from '../../util/steps.js';

/** Recursively sorts object keys, as Go's encoding of a generic map does (kubectl compares revision bytes). */
function sorted(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sorted);
  if (isRecord(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) if (v[k] !== undefined) out[k] = sorted(v[k]);
    return out;
  }
  return v;
}

/** The revision data for a set: its template (as the typed Go encoding renders it) marked `$patch: replace`. */
export function revisionData(set: StatefulSet): Record<string, unknown> {
  const template = structuredClone(set.spec?.template ?? {}) as Record<string, unknown>;
  const meta = isRecord(template.metadata) ? template.metadata : {};
  template.metadata = { creationTimestamp: null, ...meta };
  template.$patch = 'replace';
  return sorted({ spec: { template } }) as Record<string, unknown>;
}

/** The set with the template its revision recorded (upstream ApplyRevision). */
export function applyRevision(set: StatefulSet, revision: ControllerRevision): StatefulSet {
  const data = revision.data as { spec?: { template?: Record<string, unknown> } } | undefined;
  const clone = structuredClone(set);
  if (!data?.spec?.template || !clone.spec) return clone;
  const template = structuredClone(data.spec.template);
  delete template.$patch;
  if (isRecord(template.metadata) && template.metadata.creationTimestamp === null) delete template.metadata.creationTimestamp;
  clone.spec.template = template as PodTemplateSpec;
  return clone;
}

export interface SetRevisions {
  revisions: ControllerRevision[];
  current: ControllerRevision;
  update: ControllerRevision;
  collisionCount: number;
}

/** Lists (adopting orphans) and resolves the set's current and update revisions, creating or renumbering one if needed. */
export function* resolveRevisions(history: History, set: StatefulSet): Steps<SetRevisions> {
  const owner = set;
  const revisions = yield* history.list(owner, set.spec?.selector);
  let collisionCount = set.status?.collisionCount ?? 0;
  const data = revisionData(set);
  const text = canonicalJson(data);
  const last = revisions[revisions.length - 1];
  let update: ControllerRevision;
  if (last && canonicalJson(last.data) === text) {
    update = last;
  } else {
    update = yield* history.ensure(owner, revisions, data, History.nextRevision(revisions), { ...(set.spec?.template?.metadata?.labels ?? {}) },
      collisionCount, (n) => (collisionCount = n), { ...(set.metadata?.annotations ?? {}) });
  }
  const current = revisions.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update;
  const all = revisions.filter((r) => r.metadata?.name !== update.metadata?.name);
  all.push(update);
  return { revisions: all, current, update, collisionCount };
}
