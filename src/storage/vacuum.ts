// Keeps the database file compact: incremental auto-vacuum, so pages freed by compaction go back to the file system.
import type { Database } from 'better-sqlite3';

const incremental = 2;

/**
 * Turns on `auto_vacuum = INCREMENTAL`. A new database only needs the pragma before its first table; an older one
 * is rebuilt once with VACUUM (outside any transaction, before the store reads it), which can take a while on a
 * large file. Returns whether the file was rebuilt.
 */
export function ensureIncrementalVacuum(db: Database): boolean {
  if (db.pragma('auto_vacuum', { simple: true }) === incremental) return false;
  const tables = db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number;
  db.pragma('auto_vacuum = INCREMENTAL');
  if (tables === 0) return false;
  db.exec('VACUUM');
  return true;
}

/** Gives up to `maxPages` free pages (all when omitted) back to the file system; returns how many were free. */
export function releaseFreePages(db: Database, maxPages?: number): number {
  const free = db.pragma('freelist_count', { simple: true }) as number;
  if (free > 0) db.pragma(maxPages === undefined ? 'incremental_vacuum' : `incremental_vacuum(${Math.max(1, Math.trunc(maxPages))})`);
  return free;
}
