// The etcd store's worker thread: owns the etcd3 gRPC client, answers the main thread's requests (synchronous ones
// through a MessagePort plus Atomics.notify on a shared flag) and streams the /registry/ watch to it in order.
import { parentPort, workerData } from 'node:worker_threads';
import { Etcd3, type IKeyValue, type IWatchResponse } from 'etcd3';
import type { Control, Envelope, KV, Notice, Reply, Request, WatchEvent, WorkerInit } from './protocol.js';

const init = workerData as WorkerInit;
const flag = new Int32Array(init.flag);
const client = new Etcd3({ hosts: init.hosts, dialTimeout: init.callTimeoutMs });
const port = parentPort!;
let closing = false;

/**
 * Notices go out in batches: everything posted during one turn of this thread's loop travels as one message, so the
 * main thread handles one message per turn rather than one per watch event and per reply.
 */
let outbox: Notice[] = [];
const flush = () => {
  const batch = outbox;
  outbox = [];
  port.postMessage(batch);
};
const post = (n: Notice) => {
  if (!outbox.length) setImmediate(flush);
  const last = outbox[outbox.length - 1];
  // Watch responses back to back become one, which the main thread applies and publishes at once.
  if (n.kind === 'events' && last?.kind === 'events') {
    last.events.push(...n.events);
    last.revision = n.revision;
  } else outbox.push(n);
};
const deadline = () => ({ deadline: Date.now() + init.callTimeoutMs });
const kvOf = (kv: IKeyValue): KV => ({ key: kv.key.toString(), value: kv.value.toString(), mod: Number(kv.mod_revision), create: Number(kv.create_revision) });
/** The end of a prefix range: the prefix with its last byte incremented. */
export function rangeEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

async function handle(req: Request): Promise<Reply> {
  const kv = client.kv;
  switch (req.op) {
    case 'txn': {
      const key = Buffer.from(req.key);
      const compare = req.kind === 'create'
        ? { key, target: 'Create', result: 'Equal', create_revision: '0' }
        : { key, target: 'Mod', result: 'Equal', mod_revision: String(req.expect ?? 0) };
      const success = req.kind === 'delete' ? { request_delete_range: { key } } : { request_put: { key, value: Buffer.from(req.value ?? '') } };
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated request types take enum names as strings at run time
      const res = await kv.txn({ compare: [compare], success: [success], failure: [{ request_range: { key } }] } as any, deadline());
      const revision = Number(res.header.revision);
      if (res.succeeded) return { ok: true, revision, succeeded: true };
      const found = res.responses[0]?.response_range?.kvs?.[0];
      return { ok: true, revision, succeeded: false, current: found ? kvOf(found) : undefined };
    }
    case 'range': {
      const res = await kv.range({ key: Buffer.from(req.key), range_end: Buffer.from(req.end), revision: req.revision ? String(req.revision) : undefined, limit: String(req.limit), keys_only: req.keysOnly }, deadline());
      return { ok: true, revision: Number(res.header.revision), kvs: res.kvs.map(kvOf), more: res.more };
    }
    case 'revision': {
      // Any range answers with etcd's current revision; one key (the prefix itself, which holds nothing) is a single
      // index lookup, where counting the prefix walks every key under it.
      const res = await kv.range({ key: Buffer.from(init.prefix), keys_only: true, limit: '1' }, deadline());
      return { ok: true, revision: Number(res.header.revision) };
    }
    case 'compact': {
      const res = await kv.compact({ revision: String(req.revision), physical: false }, deadline());
      return { ok: true, revision: Number(res.header.revision) };
    }
  }
}

function answer(env: Envelope, reply: Reply): void {
  if (!env.sync) return post({ kind: 'reply', id: env.id, reply });
  init.replyPort.postMessage({ id: env.id, reply });
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

// The watch: one gRPC stream, reopened from the last revision seen when it fails.
let stream: Awaited<ReturnType<typeof client.watchClient.watch>> | undefined;
let nextRev = 0;
let retry: NodeJS.Timeout | undefined;
/** Bumped for every stream opened, so a dead stream's late callbacks are ignored. */
let generation = 0;

async function openWatch(): Promise<void> {
  if (closing) return;
  try {
    const gen = ++generation;
    const s = await client.watchClient.watch();
    if (gen !== generation || closing) return s.cancel();
    stream = s;
    s.on('data', (res: IWatchResponse) => gen === generation && onWatch(res));
    s.on('error', (err: Error) => gen === generation && lost(err.message));
    s.on('end', () => gen === generation && lost('the watch stream ended'));
    s.write({ create_request: { key: Buffer.from(init.prefix), range_end: Buffer.from(rangeEnd(init.prefix)), start_revision: String(nextRev), progress_notify: true, prev_kv: true } });
  } catch (err) {
    lost(err instanceof Error ? err.message : String(err));
  }
}

function lost(message: string): void {
  if (closing || retry) return;
  generation++;
  stream = undefined;
  post({ kind: 'log', message: `etcd watch interrupted (${message}); reconnecting from revision ${nextRev}` });
  retry = setTimeout(() => {
    retry = undefined;
    void openWatch();
  }, 500);
}

function onWatch(res: IWatchResponse): void {
  const revision = Number(res.header.revision);
  if (res.canceled || Number(res.compact_revision) > 0) {
    // The main thread relists, then asks for a new watch.
    generation++;
    const dead = stream;
    stream = undefined;
    try {
      dead?.cancel();
    } catch {
      /* gone already */
    }
    post({ kind: 'watch-lost', compacted: Number(res.compact_revision), message: res.cancel_reason || 'the watch was canceled' });
    return;
  }
  if (res.created) return;
  if (!res.events.length) {
    // Periodic notifications carry the watch's id; answers to a progress request carry -1 (no single watch).
    post({ kind: 'progress', revision, requested: Number(res.watch_id) < 0 });
    return;
  }
  const events: WatchEvent[] = res.events.map((e) => ({ type: e.type === 'Delete' || String(e.type) === 'DELETE' || String(e.type) === '1' ? 'DELETE' : 'PUT', kv: kvOf(e.kv), prev: e.prev_kv ? kvOf(e.prev_kv) : undefined }));
  nextRev = events[events.length - 1].kv.mod + 1;
  post({ kind: 'events', revision, events });
}

function serve(msg: Envelope): void {
  handle(msg.req).then((r) => answer(msg, r), (err: unknown) => {
    const text = err instanceof Error ? err.message : String(err);
    answer(msg, { ok: false, error: text, compacted: /compacted/.test(text) });
  });
}

port.on('message', (msg: Envelope[] | Control) => {
  if (Array.isArray(msg)) {
    for (const env of msg) serve(env);
    return;
  }
  switch (msg.op) {
    case 'watch':
      generation++;
      try {
        stream?.cancel();
      } catch {
        /* replaced anyway */
      }
      stream = undefined;
      nextRev = msg.from;
      void openWatch();
      return;
    case 'progress':
      try {
        stream?.write({ progress_request: {} });
      } catch {
        /* a reconnect is under way */
      }
      return;
    case 'close':
      closing = true;
      if (retry) clearTimeout(retry);
      try {
        stream?.cancel();
      } catch {
        /* closing anyway */
      }
      client.close();
      post({ kind: 'closed' });
      flush();
      init.replyPort.close();
      port.close();
      return;
  }
});
