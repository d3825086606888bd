// Group commit's transaction: a batch of writes, made in memory already, goes to SQLite in one transaction: each
// change's log entry, each object's pointer to its current revision, and the batch's time (for time travel).
import type { Database } from 'better-sqlite3';
import type { StoredRef } from './object-table.js';
import type { Change } from './watch-hub.js';

/** A write applied in memory and not committed yet; `ref` is a cold object's entry (its text until committed). */
export interface PendingWrite {
  change: Change;
  namespace: string;
  name: string;
  json: string;
  ref?: StoredRef;
}

/** The transaction committing one batch (in revision order); `now` gives the batch's time (ms). */
export function batchWriter(db: Database, now: () => number): (batch: PendingWrite[]) => void {
  const del = db.prepare('DELETE FROM objects WHERE resource = ? AND namespace = ? AND name = ?');
  const batchTime = db.prepare('INSERT OR REPLACE INTO revision_times (rv, ms) VALUES (?, ?)');
  // One prepared single-row statement per row: measured against statements inserting 4, 16 or 64 rows at once
  // (on 16 KiB pages), single rows cost about a third less CPU per row for batches up to 64 and the same beyond.
  const change = db.prepare('INSERT INTO changes (rv, resource, namespace, name, type, value) VALUES (?, ?, ?, ?, ?, ?)');
  const upsert = db.prepare('INSERT INTO objects (resource, namespace, name, rv) VALUES (?, ?, ?, ?) ON CONFLICT (resource, namespace, name) DO UPDATE SET rv = excluded.rv');
  return db.transaction((batch: PendingWrite[]) => {
    // In revision order: a later write of the same key wins, a delete runs in its place.
    for (const p of batch) {
      const c = p.change;
      change.run(c.rv, c.resource, p.namespace, p.name, c.type, p.json);
      if (c.type === 'DELETED') del.run(c.resource, p.namespace, p.name);
      else upsert.run(c.resource, p.namespace, p.name, c.rv);
    }
    batchTime.run(batch[batch.length - 1].change.rv, Math.trunc(now()));
  });
}
