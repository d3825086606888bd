// The main thread's side of the etcd worker: synchronous calls block on Atomics.wait (bounded by a timeout, then
// StorageError Timeout) until the worker posts the answer on a dedicated port; asynchronous calls and the watch
// stream come back as messages. Each direction sends what one turn of its event loop produced as one message.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { StorageError } from '../errors.js';
import type { Control, Envelope, Notice, Reply, Request, WorkerInit } from './protocol.js';
import { compiledModuleUrl } from '../../util/paths.js';

export interface ChannelOptions {
  hosts: string[];
  prefix: string;
  /** How long a synchronous call may block the process (ms). */
  syncTimeoutMs: number;
  onNotice: (n: Exclude<Notice, { kind: 'reply' }>) => void;
}

/** Bound on asynchronous calls in flight (each holds a promise). */
const maxInFlight = 10_000;

export class WorkerChannel {
  private readonly worker: Worker;
  private readonly flag = new Int32Array(new SharedArrayBuffer(4));
  private readonly replies: MessagePort;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; timer: NodeJS.Timeout }>();
  private exited = false;
  private outbox: Envelope[] = [];

  constructor(private readonly opts: ChannelOptions) {
    const { port1, port2 } = new MessageChannel();
    this.replies = port1;
    const init: WorkerInit = { hosts: opts.hosts, flag: this.flag.buffer as SharedArrayBuffer, replyPort: port2 as unknown as WorkerInit['replyPort'], prefix: opts.prefix, callTimeoutMs: opts.syncTimeoutMs };
    this.worker = new Worker(compiledModuleUrl('storage/etcd/worker.js'), { workerData: init, transferList: [port2] });
    this.worker.on('message', (batch: Notice[]) => {
      for (const n of batch) this.receive(n);
    });
    this.worker.on('error', (err) => opts.onNotice({ kind: 'log', message: `etcd worker failed: ${err.message}` }));
    this.worker.on('exit', () => {
      this.exited = true;
      for (const [, w] of this.waiting) {
        clearTimeout(w.timer);
        w.resolve({ ok: false, error: 'the etcd worker exited' });
      }
      this.waiting.clear();
    });
    this.worker.unref();
  }

  private receive(n: Notice): void {
    if (n.kind !== 'reply') return this.opts.onNotice(n);
    const w = this.waiting.get(n.id);
    if (!w) return;
    this.waiting.delete(n.id);
    clearTimeout(w.timer);
    w.resolve(n.reply);
  }

  /** Posts the asynchronous calls made during this turn of the event loop as one message. */
  private send(env: Envelope): void {
    if (!this.outbox.length) setImmediate(() => this.flush());
    this.outbox.push(env);
  }

  private flush(): void {
    if (!this.outbox.length) return;
    const batch = this.outbox;
    this.outbox = [];
    if (!this.exited) this.worker.postMessage(batch);
  }

  /** Sends `req` and blocks this thread until the worker answers (or the timeout passes). */
  callSync(req: Request): Reply {
    if (this.exited) throw new StorageError('Closed', 'the etcd client is closed');
    const id = this.nextId++;
    Atomics.store(this.flag, 0, 0);
    // Calls made earlier in this turn go first, in order.
    this.send({ id, sync: true, req });
    this.flush();
    const until = Date.now() + this.opts.syncTimeoutMs;
    for (;;) {
      const left = until - Date.now();
      if (left <= 0) throw new StorageError('Timeout', `etcd did not answer within ${this.opts.syncTimeoutMs} ms`);
      Atomics.wait(this.flag, 0, 0, left);
      // Reset before draining: an answer posted after the drain sets the flag again, so the next wait returns.
      Atomics.store(this.flag, 0, 0);
      // Answers to earlier calls that timed out may still be queued: skip them.
      for (let m = receiveMessageOnPort(this.replies); m; m = receiveMessageOnPort(this.replies)) {
        const msg = m.message as { id: number; reply: Reply };
        if (msg.id === id) return msg.reply;
      }
    }
  }

  /** Sends `req`; resolves with the answer, or a failed Reply after `timeoutMs`. */
  call(req: Request, timeoutMs = this.opts.syncTimeoutMs): Promise<Reply> {
    if (this.exited) return Promise.resolve({ ok: false, error: 'the etcd client is closed' });
    if (this.waiting.size >= maxInFlight) return Promise.resolve({ ok: false, error: 'too many etcd calls in flight' });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ ok: false, error: `etcd did not answer within ${timeoutMs} ms` });
      }, timeoutMs);
      timer.unref();
      this.waiting.set(id, { resolve, timer });
      // A read (a GET's consistent read) goes at once, ahead of the writes queued in this turn.
      if (req.op === 'txn') this.send({ id, sync: false, req });
      else if (!this.exited) this.worker.postMessage([{ id, sync: false, req } satisfies Envelope]);
    });
  }

  control(c: Control): void {
    this.flush();
    if (!this.exited) this.worker.postMessage(c);
  }

  /** Closes the client, then ends the worker (terminated if it does not finish within a second). */
  async close(): Promise<void> {
    if (this.exited) return;
    this.control({ op: 'close' });
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const timer = setTimeout(() => void this.worker.terminate(), 1000);
    await exited;
    clearTimeout(timer);
    this.replies.close();
  }
}
