// The commit thread (see commit-thread.ts): opens its own connection to the store's database file and runs, in the
// order they arrive, the group commits, compactions and the closing write the main thread posts. The main thread
// keeps every object in memory and only reads the file; this thread is the file's only writer once it is ready.
import { parentPort, workerData } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { batchWriter, compactChangeLog, setMeta, type CommitRow } from './batch-writer.js';
import { releaseFreePages } from './vacuum.js';
import { configureConnection } from './connection.js';

export interface CommitThreadInit {
  path: string;
  synchronous: 'NORMAL' | 'FULL';
  /** Set to 1 when the closing write is done, 2 when it failed (the main thread waits on it). */
  closed: SharedArrayBuffer;
}

export type CommitMessage =
  | { kind: 'batch'; rows: CommitRow[]; time: number }
  | { kind: 'compact'; target: number; revision: number }
  | { kind: 'close'; revision: number };

export type CommitReply = { kind: 'ready' } | { kind: 'committed' } | { kind: 'failed'; message: string };

const init = workerData as CommitThreadInit;
const flag = new Int32Array(init.closed);
const db = new BetterSqlite3(init.path);
configureConnection(db, init.synchronous);
const write = batchWriter(db);
const reply = (m: CommitReply) => parentPort?.postMessage(m);

parentPort?.on('message', (m: CommitMessage) => {
  try {
    if (m.kind === 'batch') {
      write(m.rows, m.time);
      reply({ kind: 'committed' });
    } else if (m.kind === 'compact') {
      compactChangeLog(db, m.target, m.revision);
      releaseFreePages(db);
    } else {
      setMeta(db, 'revision', String(m.revision));
      db.close();
      Atomics.store(flag, 0, 1);
      Atomics.notify(flag, 0);
      parentPort?.close();
    }
  } catch (e) {
    if (m.kind === 'close') {
      Atomics.store(flag, 0, 2);
      Atomics.notify(flag, 0);
    }
    reply({ kind: 'failed', message: e instanceof Error ? e.message : String(e) });
  }
});
reply({ kind: 'ready' });
