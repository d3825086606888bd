// Which owners to look at after a dependent (a pod, a ReplicaSet) changed, as upstream's controllers route their
// informer events: the controller it names now and the one it named before the change; and, for a live orphan,
// every owner in its namespace whose selector matches it, since one of them may adopt it.
import type { LabelSelector } from '../../generated/k8s/meta/v1.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { Change } from '../../client/types.js';
import { controllerRef } from './owner.js';
import { keyOf } from '../../machinery/object-key.js';

/** `namespace/name` keys of the owners of `kind` (stored under `ownersResource`) that `c` concerns. */
export function ownerKeysFor(client: Client, c: Change, kind: string, ownersResource: string): string[] {
  const ns = c.object.metadata.namespace ?? '';
  const keys = new Set<string>();
  const now = controllerRef(c.object);
  for (const ref of [now, c.previous && controllerRef(c.previous)]) if (ref?.kind === kind) keys.add(`${ns}/${ref.name}`);
  if (c.type !== 'DELETED' && !now) {
    for (const owner of client.list(ownersResource, ns)) {
      const selector = (owner.spec as { selector?: LabelSelector } | undefined)?.selector;
      if (labelSelectorMatches(selector, c.object.metadata.labels ?? {})) keys.add(keyOf(owner as KObject));
    }
  }
  return [...keys];
}
