// Time travel over the change log: the state of chosen resources at any revision still in the log, and the changes
// between two revisions, a page at a time. Answers carry the stored JSON texts as they are (never re-serialized).
import type { Database, Statement } from 'better-sqlite3';
import { StorageError } from './errors.js';

/** The revisions time travel can reach: from `oldest` (the compaction horizon) to `newest` (the last committed). */
export interface HistoryBounds {
  oldest: number;
  newest: number;
}

/** Objects of one resource (storage key) as JSON texts, in key order. */
export interface StateSlice {
  resource: string;
  objects: string[];
}

export interface ChangeRow {
  rv: number;
  resource: string;
  type: string;
  /** The object as stored by that change (for DELETED: its last state). */
  json: string;
}

export interface ChangePage {
  changes: ChangeRow[];
  /** Set when more changes remain: the revision the next page starts after. */
  next?: number;
}

interface Source {
  compactedRevision(): number;
  publishedRevision(): number;
}

export class ChangeHistory {
  private readonly stmts: { latest: Statement; page: Statement; time: Statement; lastTime: Statement; first: Statement };

  constructor(db: Database, private readonly src: Source) {
    this.stmts = {
      // The latest change of each key of one resource at or before a revision (a bare column beside MAX() comes
      // from the row holding the maximum); keys whose latest change is a deletion are absent then.
      latest: db.prepare(
        `SELECT c.value AS json FROM (SELECT MAX(rv) AS rv, type FROM changes WHERE resource = ? AND rv <= ? GROUP BY namespace, name) m
         JOIN changes c ON c.rv = m.rv WHERE m.type <> 'DELETED'`,
      ).pluck(),
      page: db.prepare(
        `SELECT rv, resource, type, value AS json FROM changes WHERE rv > ? AND rv <= ? AND resource IN (SELECT value FROM json_each(?))
         ORDER BY rv LIMIT ?`,
      ),
      time: db.prepare('SELECT ms FROM revision_times WHERE rv >= ? ORDER BY rv LIMIT 1').pluck(),
      lastTime: db.prepare('SELECT ms FROM revision_times WHERE rv <= ? ORDER BY rv DESC LIMIT 1').pluck(),
      first: db.prepare('SELECT MIN(rv) FROM changes WHERE rv > ?').pluck(),
    };
  }

  /** `oldest` is the compacted revision (its state is whole: compaction keeps each key's latest change), or the first. */
  bounds(): HistoryBounds {
    const compacted = this.src.compactedRevision();
    const newest = this.src.publishedRevision();
    if (compacted > 0) return { oldest: Math.min(compacted, newest), newest };
    const first = this.stmts.first.get(0) as number | null;
    return { oldest: first === null ? newest : Math.min(first, newest), newest };
  }

  /** Throws StorageError('Expired') below the compaction horizon; `rv` must not be ahead of `newest` (checked by callers). */
  private check(rv: number): void {
    const compacted = this.src.compactedRevision();
    if (rv < compacted) throw new StorageError('Expired', `too old resource version: ${rv} (${compacted + 1})`, compacted + 1);
  }

  /** The objects of each resource (storage keys) as they were at revision `rv`. */
  stateAt(rv: number, resources: readonly string[]): StateSlice[] {
    this.check(rv);
    return resources.map((resource) => ({ resource, objects: this.stmts.latest.all(resource, rv) as string[] }));
  }

  /** When revision `rv` was written (ms of the store's clock), if recorded. */
  timeOf(rv: number): number | undefined {
    const ms = (this.stmts.time.get(rv) ?? this.stmts.lastTime.get(rv)) as number | null | undefined;
    return ms ?? undefined;
  }

  /** Changes of `resources` (storage keys) with `from < rv <= to`, at most `limit`, in revision order. */
  changes(from: number, to: number, resources: readonly string[], limit: number): ChangePage {
    this.check(from);
    const rows = this.stmts.page.all(from, to, JSON.stringify(resources), limit + 1) as ChangeRow[];
    if (rows.length <= limit) return { changes: rows };
    rows.length = limit;
    return { changes: rows, next: rows[limit - 1].rv };
  }
}
