// Group commit off the main thread, for a store kept in a file: the main thread applies writes in memory (they are
// read from there at once) and posts each batch's rows here; a worker thread (commit-worker.ts) runs the SQLite
// transaction while the main thread goes on serving, and the batch is published to watchers, and its writers
// answered, when the worker says it is committed. One batch is in flight at a time; what is written meanwhile waits
// for the next (so batches grow with the load). Until the worker has opened its connection the store commits on
// the main thread itself, so start-up never waits for the thread.
import { Worker } from 'node:worker_threads';
import { compiledModuleUrl } from '../util/paths.js';
import type { CommitRow } from './batch-writer.js';
import type { CommitMessage, CommitReply, CommitThreadInit } from './commit-worker.js';

/** The longest the closing write may take before the process stops waiting for it (ms). */
const closeWaitMs = 30_000;

export class CommitThread {
  private readonly worker: Worker;
  private readonly closedFlag = new Int32Array(new SharedArrayBuffer(4));
  private ready = false;
  private inFlight = 0;
  private closed = false;

  /** `onCommitted` runs once per batch, in order; `onFailed` when a commit fails or the thread is lost (fatal). */
  constructor(path: string, synchronous: 'NORMAL' | 'FULL', private readonly onCommitted: () => void, private readonly onFailed: (message: string) => void) {
    const init: CommitThreadInit = { path, synchronous, closed: this.closedFlag.buffer as SharedArrayBuffer };
    this.worker = new Worker(compiledModuleUrl('storage/commit-worker.js'), { workerData: init });
    this.worker.on('message', (m: CommitReply) => this.onReply(m));
    this.worker.on('error', (e) => this.lost(e.message));
    this.worker.on('exit', (code) => this.lost(`the commit thread exited with code ${code}`));
    // After the listeners (a 'message' listener refs the port again): the thread keeps the process alive only while
    // a batch is on its way (someone may be waiting for it).
    this.worker.unref();
  }

  /** Whether batches go to the thread (false until it has opened its connection, and after close). */
  isReady(): boolean {
    return this.ready && !this.closed;
  }

  /** Whether a batch is being committed on the thread. */
  busy(): boolean {
    return this.inFlight > 0;
  }

  commit(rows: CommitRow[], time: number): void {
    if (this.inFlight++ === 0) this.worker.ref();
    this.post({ kind: 'batch', rows, time });
  }

  compact(target: number, revision: number): void {
    this.post({ kind: 'compact', target, revision });
  }

  /**
   * Waits (blocking: the server has stopped answering by now) for the batches posted to be committed and the
   * closing write to be made, then stops the thread. Throws when the closing write failed or took too long.
   */
  close(revision: number): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.ready) {
      void this.worker.terminate();
      return;
    }
    this.post({ kind: 'close', revision });
    const outcome = Atomics.wait(this.closedFlag, 0, 0, closeWaitMs);
    void this.worker.terminate();
    if (outcome === 'timed-out') throw new Error('the commit thread did not finish its writes');
    if (Atomics.load(this.closedFlag, 0) !== 1) throw new Error('the commit thread failed its closing write');
  }

  private post(m: CommitMessage): void {
    this.worker.postMessage(m);
  }

  private onReply(m: CommitReply): void {
    if (this.closed) return;
    if (m.kind === 'ready') this.ready = true;
    else if (m.kind === 'committed') {
      if (--this.inFlight === 0) this.worker.unref();
      this.onCommitted();
    } else this.onFailed(m.message);
  }

  private lost(why: string): void {
    if (this.closed) return;
    this.closed = true;
    this.onFailed(why);
  }
}
