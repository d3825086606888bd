// Keeps the database file compact: incremental auto-vacuum, so pages freed by compaction go back to the file system.
import type { Database } from 'better-sqlite3';

const incremental = 2;
/** The page size of new databases (an older file keeps its own: WAL mode cannot change it). */
export const pageSize = 16_384;

/**
 * Turns on `auto_vacuum = INCREMENTAL` (call before `journal_mode = WAL`). A new database only needs the pragma before its first table; an older one
 * is rebuilt once with VACUUM (outside any transaction, before the store reads it), which can take a while on a
 * large file. Returns whether the file was rebuilt.
 */
export function ensureIncrementalVacuum(db: Database): boolean {
  if (db.pragma('auto_vacuum', { simple: true }) === incremental) return false;
  const tables = db.prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'").pluck().get() as number;
  if (tables === 0) {
    // 16 KiB pages hold several pods each (a 3-5 KB row in a 4 KiB page wastes most of it): about 25% smaller.
    db.pragma(`page_size = ${pageSize}`);
    db.pragma('auto_vacuum = INCREMENTAL');
    return false;
  }
  db.pragma('auto_vacuum = INCREMENTAL');
  db.exec('VACUUM');
  return true;
}

/** Gives up to `maxPages` free pages (all when omitted) back to the file system; returns how many were free. */
export function releaseFreePages(db: Database, maxPages?: number): number {
  const free = db.pragma('freelist_count', { simple: true }) as number;
  if (free > 0) db.pragma(maxPages === undefined ? 'incremental_vacuum' : `incremental_vacuum(${Math.max(1, Math.trunc(maxPages))})`);
  return free;
}
