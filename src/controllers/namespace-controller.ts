// Namespace deletion: a Terminating namespace has its contents deleted, then its finalizer removed, then it is gone.
import type { Namespace } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import { splitKey } from '../machinery/object-key.js';
import { defineController } from './runtime/index.js';

/** Keys are namespaces (`/<name>`): those with a deletionTimestamp. */
export const namespaceController = defineController({
  name: 'namespace',
  for: { resource: 'v1/namespaces', when: (c) => c.type !== 'DELETED' && !!c.object.metadata.deletionTimestamp },
  reconcile: (key, { client }) => reconcileNamespace(client, key),
});

async function reconcileNamespace(client: Client, key: string): Promise<void | number> {
  const { name } = splitKey(key);
  const ns = client.get<Namespace>('v1/namespaces', '', name);
  if (!ns?.metadata?.deletionTimestamp) return;
  let remaining = 0;
  for (const def of client.resources()) {
    if (!def.namespaced || def.sharedStorage || def.virtualCreate) continue;
    for (const o of client.list(def, name)) {
      remaining++;
      if (o.metadata.deletionTimestamp) continue;
      try {
        await client.delete(def, name, o.metadata.name ?? '', { propagationPolicy: 'Background' });
      } catch {
        /* already going */
      }
    }
  }
  if (remaining > 0) {
    // Check again shortly; deletions with finalizers or grace periods take a while.
    let left = 0;
    for (const def of client.resources()) if (def.namespaced && !def.sharedStorage && !def.virtualCreate) left += client.list(def, name).length;
    if (left > 0) return 500;
  }
  const cur = client.get<Namespace>('v1/namespaces', '', name);
  if (!cur) return;
  await client.finalizeNamespace(name, (cur.spec?.finalizers ?? []).filter((f) => f !== 'kubernetes'));
}

