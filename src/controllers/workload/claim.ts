// Adoption and release by selector, as upstream's ControllerRefManager does: a controller adopts matching orphans
// (unless it is being deleted) and releases dependents it controls that no longer match its selector.
import type { LabelSelector } from '../../generated/k8s/meta/v1.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { controllerRef, controllerRefTo } from './owner.js';
import type { Steps } from '../../util/steps.js';

export interface ClaimOptions {
  /** Extra test an orphan must pass before adoption (e.g. a DaemonSet pod must sit on a node). */
  canAdopt?: (obj: KObject) => boolean;
}

/**
 * Returns the candidates `owner` controls after adopting and releasing. Candidates are the objects of `def` in the
 * owner's namespace; writes go through the registry (adoption adds the controller reference, release removes it).
 * Steps: they wait only when there is something to adopt or release (see util/steps.ts).
 */
export function* claim(client: Client, def: ResourceDef, owner: KObject, selector: LabelSelector | undefined, candidates: KObject[], opts: ClaimOptions = {}): Steps<KObject[]> {
  const uid = owner.metadata.uid;
  const ns = owner.metadata.namespace ?? '';
  const deleting = !!owner.metadata.deletionTimestamp;
  const matches = (o: KObject) => !!selector && Object.keys(selector).length > 0 && labelSelectorMatches(selector, o.metadata.labels ?? {});
  const mine: KObject[] = [];
  for (const o of candidates) {
    const ref = controllerRef(o);
    if (ref) {
      if (ref.uid !== uid) continue;
      if (matches(o) || deleting || o.metadata.deletionTimestamp) {
        mine.push(o);
        continue;
      }
      try {
        yield client.guaranteedUpdate(def, ns, o.metadata.name ?? '', (cur) => ({
          ...cur, metadata: { ...cur.metadata, ownerReferences: (cur.metadata.ownerReferences ?? []).filter((r) => r.uid !== uid) },
        }));
      } catch { /* gone or changed: the next pass sees the truth */ }
      continue;
    }
    if (deleting || o.metadata.deletionTimestamp || !matches(o) || (opts.canAdopt && !opts.canAdopt(o))) continue;
    try {
      const adopted = (yield client.guaranteedUpdate(def, ns, o.metadata.name ?? '', (cur) => {
        if (controllerRef(cur)) throw new Error('already controlled');
        return { ...cur, metadata: { ...cur.metadata, ownerReferences: [...(cur.metadata.ownerReferences ?? []), controllerRefTo(owner)] } };
      })) as KObject;
      mine.push(adopted);
    } catch { /* someone else adopted it, or it is gone */ }
  }
  return mine;
}
