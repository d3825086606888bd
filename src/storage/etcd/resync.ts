// After the etcd watch fell behind a compaction: the mirror is brought to etcd's current state, and the differences
// become changes (all at the revision read), for watchers to catch up as a relisting informer would.
import type { KObject } from '../../machinery/types.js';
import type { Change } from '../watch-hub.js';
import type { KeyLayout } from './keys.js';
import { rvOf, type Mirror } from './mirror.js';
import type { KV } from './protocol.js';

export interface ResyncSource {
  mirror: Mirror;
  layout: KeyLayout;
  decode(kv: KV): KObject | undefined;
  /** Ranges every key at the newest revision, calling `visit` for each; resolves with the revision, or rejects. */
  rangeAll(visit: (kv: KV) => void): Promise<number>;
}

/**
 * Reads everything again. The pages are read at one revision; writes of this process answered meanwhile are newer
 * than it, and the watch restarted from it brings them again.
 */
export async function resync(src: ResyncSource): Promise<{ revision: number; changes: Change[] }> {
  const { mirror, layout } = src;
  const seen = new Set<KObject>();
  const found: Array<{ resource: string; obj: KObject; cur: KObject | undefined }> = [];
  const revision = await src.rangeAll((kv) => {
    const p = layout.parse(kv.key);
    const cur = p && mirror.get(p.resource, p.namespace, p.name);
    if (cur && rvOf(cur) === kv.mod) seen.add(cur);
    const obj = p && (!cur || rvOf(cur) !== kv.mod) ? src.decode(kv) : undefined;
    if (!p || !obj) return;
    mirror.apply(p.resource, p.namespace, p.name, obj, kv.mod);
    seen.add(obj);
    found.push({ resource: p.resource, obj, cur });
  });
  const changes: Change[] = found.map(({ resource, obj, cur }) => ({ type: cur ? 'MODIFIED' : 'ADDED', resource, rv: revision, object: obj, previous: cur }));
  for (const [resource, obj] of [...mirror.entries()]) {
    if (seen.has(obj)) continue;
    mirror.apply(resource, obj.metadata.namespace ?? '', obj.metadata.name ?? '', undefined, revision);
    changes.push({ type: 'DELETED', resource, rv: revision, object: { ...obj, metadata: { ...obj.metadata, resourceVersion: String(revision) } }, previous: obj });
  }
  return { revision, changes };
}
