// The settings every connection to a store's database file gets (the store's own and the commit thread's).
import type { Database } from 'better-sqlite3';

/** How long a connection waits for the other's write to end before SQLITE_BUSY (only compaction's is long). */
const busyTimeoutMs = 10_000;

export function configureConnection(db: Database, synchronous: 'NORMAL' | 'FULL' | 'OFF'): void {
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma('cache_size = -65536');
  db.pragma('wal_autocheckpoint = 8192');
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
}
