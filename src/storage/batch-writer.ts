// Group commit's transaction: a batch of writes, made in memory already, goes to SQLite in one transaction: each
// change's log entry, each object's pointer to its current revision, and the batch's time (for time travel).
import type { Database, Statement } from 'better-sqlite3';
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
  // Rows go in several to a statement (each statement run has a fixed cost): the change log in any order, the
  // object pointers in batch order (a later write of the same key wins; a delete runs alone, in its place).
  const changeRows = rowsStatements(db, 'INSERT INTO changes (rv, resource, namespace, name, type, value) VALUES ', '(?, ?, ?, ?, ?, ?)', '');
  const upsertRows = rowsStatements(db, 'INSERT INTO objects (resource, namespace, name, rv) VALUES ', '(?, ?, ?, ?)', ' ON CONFLICT (resource, namespace, name) DO UPDATE SET rv = excluded.rv');
  return db.transaction((batch: PendingWrite[]) => {
    runRows(changeRows, batch, (p) => [p.change.rv, p.change.resource, p.namespace, p.name, p.change.type, p.json]);
    let start = 0;
    batch.forEach((p, i) => {
      if (p.change.type !== 'DELETED') return;
      runRows(upsertRows, batch.slice(start, i), upsertParams);
      del.run(p.change.resource, p.namespace, p.name);
      start = i + 1;
    });
    runRows(upsertRows, start ? batch.slice(start) : batch, upsertParams);
    batchTime.run(batch[batch.length - 1].change.rv, Math.trunc(now()));
  });
}

const upsertParams = (p: PendingWrite): unknown[] => [p.change.resource, p.namespace, p.name, p.change.rv];

/** Statements inserting 64, 16, 4 or 1 rows of `row` at once. */
function rowsStatements(db: Database, head: string, row: string, tail: string): Array<[number, Statement]> {
  return [64, 16, 4, 1].map((n) => [n, db.prepare(`${head}${new Array<string>(n).fill(row).join(', ')}${tail}`)]);
}

/** Runs `rows` through the largest statements that fit, in order. */
function runRows(stmts: Array<[number, Statement]>, rows: PendingWrite[], params: (p: PendingWrite) => unknown[]): void {
  let i = 0;
  for (const [n, stmt] of stmts) {
    while (rows.length - i >= n) {
      const values: unknown[] = [];
      for (let j = i; j < i + n; j++) values.push(...params(rows[j]));
      stmt.run(values);
      i += n;
    }
  }
}
