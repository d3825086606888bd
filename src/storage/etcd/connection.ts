// The etcd store's connection: etcd's gRPC API over one HTTP/2 connection in this thread (grpc-channel.ts), every
// call asynchronous (many in flight, none blocking the event loop), and the one watch of the registry prefix,
// reopened from the last revision seen when its stream fails. What the watch brings during one turn of the event
// loop reaches the store as one batch of notices.
import type { Control, Notice, Reply, Request } from './protocol.js';
import { GrpcChannel, type GrpcStream } from './grpc-channel.js';
import {
  decodeCompaction, decodeRange, decodeTxn, decodeWatchResponse, encodeCompaction, encodeRange, encodeTxn, encodeWatchCreate, encodeWatchProgress,
  type WatchAnswer,
} from './etcd-messages.js';

export interface ConnectionOptions {
  hosts: string[];
  /** Prefix watched into the store's mirror. */
  prefix: string;
  /** etcd's deadline for each call (ms). */
  callTimeoutMs: number;
  onNotice: (n: Notice) => void;
}

/** Bound on calls in flight (each holds a promise and a deadline). */
const maxInFlight = 10_000;

/** The end of a prefix range: the prefix with its last byte incremented. */
export function rangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

export class EtcdConnection {
  private readonly grpc: GrpcChannel;
  private closed = false;
  private inFlight = 0;
  /** Notices of this turn, delivered together (back-to-back watch responses merged into one). */
  private outbox: Notice[] = [];
  private stream: GrpcStream | undefined;
  private nextRev = 0;
  private retry: NodeJS.Timeout | undefined;
  /** Bumped for every stream opened, so a dead stream's late callbacks are ignored. */
  private generation = 0;

  constructor(private readonly opts: ConnectionOptions) {
    this.grpc = new GrpcChannel(opts.hosts);
  }

  private post(n: Notice): void {
    if (!this.outbox.length) setImmediate(() => this.flush());
    const last = this.outbox[this.outbox.length - 1];
    if (n.kind === 'events' && last?.kind === 'events') {
      last.events.push(...n.events);
      last.revision = n.revision;
    } else this.outbox.push(n);
  }

  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    for (const n of batch) this.opts.onNotice(n);
  }

  /** Sends `req`; resolves with etcd's answer, or a failed Reply (closed, too many in flight, deadline passed, refused). */
  async call(req: Request): Promise<Reply> {
    if (this.closed) return { ok: false, error: 'the etcd client is closed' };
    if (this.inFlight >= maxInFlight) return { ok: false, error: 'too many etcd calls in flight' };
    this.inFlight++;
    try {
      return await this.handle(req);
    } catch (err) {
      const text = err instanceof Error ? err.message : String(err);
      return { ok: false, error: text, compacted: /compacted/.test(text) };
    } finally {
      this.inFlight--;
    }
  }

  private async handle(req: Request): Promise<Reply> {
    const timeout = this.opts.callTimeoutMs;
    switch (req.op) {
      case 'txn': {
        const r = decodeTxn(await this.grpc.call('/etcdserverpb.KV/Txn', encodeTxn(req.kind, req.key, req.value, req.expect), timeout));
        return r.succeeded ? { ok: true, revision: r.revision, succeeded: true } : { ok: true, revision: r.revision, succeeded: false, current: r.current };
      }
      case 'range': {
        const r = decodeRange(await this.grpc.call('/etcdserverpb.KV/Range', encodeRange({ key: req.key, end: req.end, limit: req.limit, revision: req.revision, keysOnly: req.keysOnly }), timeout));
        return { ok: true, revision: r.revision, kvs: r.kvs, more: r.more };
      }
      case 'revision': {
        // Any range answers with etcd's current revision; one key (the prefix itself, which holds nothing) is a single
        // index lookup, where counting the prefix walks every key under it.
        const r = decodeRange(await this.grpc.call('/etcdserverpb.KV/Range', encodeRange({ key: this.opts.prefix, keysOnly: true, limit: 1 }), timeout));
        return { ok: true, revision: r.revision };
      }
      case 'compact': {
        const r = decodeCompaction(await this.grpc.call('/etcdserverpb.KV/Compact', encodeCompaction(req.revision), timeout));
        return { ok: true, revision: r.revision };
      }
    }
  }

  control(c: Control): void {
    if (this.closed) return;
    switch (c.op) {
      case 'watch':
        this.dropStream();
        this.nextRev = c.from;
        this.openWatch();
        return;
      case 'progress':
        this.stream?.write(encodeWatchProgress());
        return;
    }
  }

  private dropStream(): void {
    this.generation++;
    const dead = this.stream;
    this.stream = undefined;
    try {
      dead?.cancel();
    } catch {
      /* gone already */
    }
  }

  private openWatch(): void {
    if (this.closed) return;
    const gen = ++this.generation;
    const s = this.grpc.stream('/etcdserverpb.Watch/Watch', {
      message: (m) => {
        if (gen !== this.generation) return;
        let answer: WatchAnswer;
        try {
          answer = decodeWatchResponse(m);
        } catch (err) {
          return this.lost(`an undecodable watch response: ${err instanceof Error ? err.message : String(err)}`);
        }
        this.onWatch(answer);
      },
      end: (why) => gen === this.generation && this.lost(why),
    });
    this.stream = s;
    s.write(encodeWatchCreate(this.opts.prefix, rangeEnd(this.opts.prefix), this.nextRev));
  }

  private lost(message: string): void {
    if (this.closed || this.retry) return;
    this.dropStream();
    this.post({ kind: 'log', message: `etcd watch interrupted (${message}); reconnecting from revision ${this.nextRev}` });
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.openWatch();
    }, 500);
    this.retry.unref();
  }

  private onWatch(res: WatchAnswer): void {
    if (res.canceled || res.compactRevision > 0) {
      // The store relists, then asks for a new watch.
      this.dropStream();
      this.post({ kind: 'watch-lost', compacted: res.compactRevision, message: res.cancelReason || 'the watch was canceled' });
      return;
    }
    if (res.created) return;
    if (!res.events.length) {
      // Periodic notifications carry the watch's id; answers to a progress request carry -1 (no single watch).
      this.post({ kind: 'progress', revision: res.revision, requested: res.watchId < 0 });
      return;
    }
    this.nextRev = res.events[res.events.length - 1].kv.mod + 1;
    this.post({ kind: 'events', revision: res.revision, events: res.events });
  }

  /** Closes the watch and the client; calls made after it answer as failed. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.dropStream();
    this.outbox = [];
    this.grpc.close();
  }
}
