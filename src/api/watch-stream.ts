// Streams a watch as newline-delimited JSON events over a chunked 200 response. Each batch of committed changes
// reaches a watcher as one write of shared, once-encoded event lines. A watcher whose socket stops taking data is
// cut off once more than maxPendingEvents events wait for it, as kube-apiserver's cacher terminates a watcher
// whose channel stays full: its socket is reset and everything it held is released; the client watches again.
// A custom resource watched in another version than its storage one has each event converted by its CRD's
// webhook on the way out (watch-conversion.ts), in order, under the same bound.
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../machinery/errors.js';
import { apiVersionOf, type KObject } from '../machinery/types.js';
import type { Registry, WatchOptions } from '../registry/registry.js';
import type { WatchEvent, WatchEventType, WatchHandle } from '../registry/read.js';
import type { ResourceDef } from '../registry/resource.js';
import type { OutputFormat } from './output.js';
import { encodeEvent, shapeKey, sharedEvent, type WatchShape } from './watch-encoding.js';
import { longTimeout } from './watch-timeout.js';
import { watchInitialized } from '../flowcontrol/dispatch/apf-filter.js';
import { openWatchesOf, terminatedWatchersOf } from './open-watches.js';

export { openWatchesOf, terminatedWatchersOf };
import { convertedEvent, needsConversion } from './converted.js';
import { OrderedConverter, type ConvertedItem } from './watch-conversion.js';

export interface WatchRequest {
  def: ResourceDef;
  version: string;
  namespace: string | undefined;
  opts: WatchOptions;
  format: OutputFormat;
  includeObject?: string;
  bookmarks: boolean;
  /** How long the watch lasts (watchTimeoutMs): <= 0 ends it at once. */
  timeoutMs: number;
}

/** Events that may wait for a watcher whose socket takes no more: upstream's per-watcher channel size without an index. */
const maxPendingEvents = 100;
/** Bytes that may wait for one watcher (its socket's buffer and its queue), whatever the count of events. */
const maxPendingBytes = 16 * 1024 * 1024;
/** Events from before the watch began (initial state, replay) are read and written this many at a time. */
const backlogEvents = 100;
const bookmarkEveryMs = 5_000;
/** Conversion webhook calls one watch may have under way, and backlog events it reads ahead of the socket. */
const conversionsInFlight = 4;
const conversionWindow = 16;
const crlf = Buffer.from('\r\n');

/** A live event: its shared line, or (a Table watch before its column definitions are out) the event itself. */
type Queued = Buffer | WatchEvent;

export function streamWatch(reg: Registry, w: WatchRequest, req: FastifyRequest, reply: FastifyReply): void {
  // Start the watch before any byte is sent: bad requests (selectors, parameters) are a plain 4xx response as
  // upstream answers them; only errors upstream reports inside the stream (410 Expired) become ERROR events.
  // Events from before the watch (initial state, replay) are pulled as the socket takes them; live events
  // arriving meanwhile wait behind them.
  let sink: (type: WatchEventType, obj: KObject) => void = () => {};
  let handle: WatchHandle | undefined;
  let startRv = 0;
  /** Starts the watch at the store's current revision; what it failed with, if it did. */
  const start = (): unknown => {
    startRv = reg.store.revision();
    handle = undefined;
    try {
      handle = reg.watch(w.def, w.namespace, w.opts, (type, obj) => sink(type, obj));
      return undefined;
    } catch (e) {
      return e;
    }
  };
  let startError = start();
  if (startError instanceof ApiError && (startError.code === 400 || startError.code === 422)) throw startError;
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  if (res.socket) return serve(res.socket);
  // Pipelined behind another response on its connection: the watch starts when this response's turn comes, as
  // if the request had arrived then, once its headers are written.
  handle?.stop();
  res.once('socket', (s: Socket) => process.nextTick(() => {
    startError = start();
    serve(s);
  }));

  function serve(sock: Socket): void {
    if (sock.destroyed) {
      // The client left before the stream began.
      handle?.stop();
      return;
    }
    const hub = reg.store.hub;
    const openWatches = openWatchesOf(reg);
    /**
     * A CRD's conversion webhook converts every event (not PartialObjectMetadata, which has no version of the
     * kind): backlog and live events go through `conv`, live ones held back until the backlog is in. A converted
     * object is a new one: the stored text (found by resourceVersion) is not its text.
     */
    const converting = needsConversion(w.def, w.version) && w.format !== 'partial';
    const shape: WatchShape = { def: w.def, version: w.version, format: w.format, includeObject: w.includeObject, textOf: converting ? (o) => reg.pendingText(o) : reg.textOf(w.def) };
    const key = shapeKey(shape);
    const now = () => reg.clock.now();
    let closed = false;
    /** Written data the socket has not taken yet ('drain' pending): later events queue. */
    let blocked = false;
    /** Events from before the watch are still to be written (then the initial-events-end bookmark, if asked for). */
    let backlogDone = false;
    let endBookmark = Boolean(w.opts.sendInitialEvents && w.bookmarks);
    /** Live events produced while blocked or behind the backlog: the socket has not accepted them. */
    let queue: Queued[] = [];
    let queuedBytes = 0;
    /** Events of the batch being published, written together when it ends. */
    let batch: Queued[] = [];
    let columnsSent = false;
    const cancels: Array<() => void> = [];
    const conv = converting
      ? new OrderedConverter((o) => convertedEvent(reg, w.def, w.version, o), conversionsInFlight, { ready: (items) => converted(items), failed: (e) => conversionFailed(e) })
      : undefined;
    let held: WatchEvent[] = [];
    /** A conversion failed: the stream ends once what came before it is written. */
    let ending = false;
    const stuck = () => blocked || !backlogDone || queue.length > 0;
    const behind = () => stuck() || (conv !== undefined && (conv.size > 0 || held.length > 0));
    const overflowing = () => queue.length + held.length + (conv?.size ?? 0) > maxPendingEvents || queuedBytes + sock.writableLength > maxPendingBytes;

    const onDrain = () => {
      blocked = false;
      pump();
    };
    const release = () => {
      closed = true;
      sock.off('drain', onDrain);
      handle?.stop();
      handle = undefined;
      for (const c of cancels) c();
      cancels.length = 0;
      openWatches.delete(close);
      conv?.stop();
      queue = [];
      batch = [];
      held = [];
    };
    /** Ends the stream; a socket that is not taking data is reset rather than left holding the rest. */
    const close = (): void => {
      if (closed) return;
      const wasStuck = stuck();
      release();
      if (wasStuck) sock.destroy();
      else if (!res.writableEnded) res.end();
    };
    const cutOff = () => {
      if (closed) return;
      const resource = w.def.group ? `${w.def.plural}.${w.def.group}` : w.def.plural;
      const terminatedWatchers = terminatedWatchersOf(reg);
      terminatedWatchers.set(resource, (terminatedWatchers.get(resource) ?? 0) + 1);
      reg.log.info(
        `Forcing ${resource} watcher close due to unresponsiveness: key: "/${w.def.plural}${w.namespace ? `/${w.namespace}` : ''}", ` +
        `labels: "${w.opts.labelSelector ?? ''}", fields: "${w.opts.fieldSelector ?? ''}". pending events = ${queue.length + held.length + (conv?.size ?? 0)}, buffered bytes = ${sock.writableLength + queuedBytes}`,
      );
      release();
      // A reset frees the kernel's buffers at once; a plain close would keep sending what the client does not read.
      // Only a plain TCP socket can be reset (a TLS one is destroyed).
      try {
        sock.resetAndDestroy();
      } catch {
        sock.destroy();
      }
    };
    openWatches.add(close);

    const encodeOwn = (e: WatchEvent) => {
      const line = encodeEvent(shape, e.type, e.object, !columnsSent, now());
      columnsSent = true;
      return line;
    };
    const line = (q: Queued) => (Buffer.isBuffer(q) ? q : encodeOwn(q));
    /**
     * Writes `parts` as one HTTP chunk straight to the socket, in one writev of the shared lines (no copy per
     * watcher; the response's own writer would add work per call).
     */
    const write = (parts: Buffer[]) => {
      if (!parts.length || sock.destroyed) return;
      let len = 0;
      for (const p of parts) len += p.length;
      sock.cork();
      sock.write(Buffer.from(`${len.toString(16)}\r\n`, 'latin1'));
      for (const p of parts) sock.write(p);
      if (!sock.write(crlf)) blocked = true;
      sock.uncork();
    };
    const errorEvent = (e: unknown) => {
      const status = e instanceof ApiError ? e.toStatus() : new ApiError(500, 'InternalError', String(e)).toStatus();
      write([Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`)]);
    };
    /** Writes the backlog, then queued live events, while the socket takes them. */
    const pump = () => {
      while (!closed && !blocked) {
        if (!backlogDone && handle) {
          // Converted events are read ahead only as far as the conversion window reaches.
          const room = conv ? conversionWindow - conv.size : backlogEvents;
          if (room <= 0) break;
          let got;
          try {
            got = handle.backlog(room);
          } catch (e) {
            // Compaction overtook the replay. As upstream, the stream just ends: watching again from the last event
            // it got, the client learns that its resourceVersion is too old.
            reg.log.info({ err: e }, "couldn't retrieve watch event to serve");
            backlogDone = true;
            return close();
          }
          backlogDone = got.done;
          // The initial events are out: the watch's APF seat goes back.
          if (backlogDone) watchInitialized(req);
          if (conv) {
            for (const e of got.events) conv.push(e.type, e.object);
            if (backlogDone && endBookmark) conv.pushLine(bookmarkLine(startRv, { 'k8s.io/initial-events-end': 'true' }));
            endBookmark &&= !backlogDone;
            if (backlogDone) {
              for (const e of held) conv.push(e.type, e.object);
              held = [];
            }
            continue;
          }
          const parts = got.events.map(encodeOwn);
          if (backlogDone && endBookmark) parts.push(bookmarkLine(startRv, { 'k8s.io/initial-events-end': 'true' }));
          endBookmark &&= !backlogDone;
          write(parts);
        } else if (queue.length) {
          const parts = queue.map(line);
          queue = [];
          queuedBytes = 0;
          write(parts);
        } else break;
      }
      if (ending && !closed && !queue.length) finish();
    };
    /** Converted events, in order: written at once unless the socket or older events hold them back. */
    const converted = (items: ConvertedItem[]) => {
      if (closed) return;
      if (!blocked && !queue.length) write(items.map(line));
      else for (const q of items) queue.push(q), queuedBytes += Buffer.isBuffer(q) ? q.length : 0;
      if (overflowing()) return cutOff();
      pump();
    };
    /** As upstream's watch server: the error is logged and the stream ends (no ERROR event). */
    const conversionFailed = (e: unknown) => {
      if (closed) return;
      reg.log.info(`unable to encode watch object *unstructured.Unstructured: ${e instanceof Error ? e.message : String(e)}`);
      ending = true;
      if (!blocked && !queue.length) finish();
    };
    /** Ends the stream after what has been written (the socket's buffer included). */
    const finish = () => {
      release();
      if (!res.writableEnded) res.end();
    };
    const flushBatch = () => {
      const items = batch;
      batch = [];
      if (closed || !items.length) return;
      if (!behind()) {
        write(items.map(line));
        if (sock.writableLength > maxPendingBytes) cutOff();
        return;
      }
      for (const q of items) queue.push(q), queuedBytes += Buffer.isBuffer(q) ? q.length : 0;
      if (queue.length > maxPendingEvents || queuedBytes + sock.writableLength > maxPendingBytes) cutOff();
    };
    const live = (type: WatchEventType, obj: KObject) => {
      if (closed) return;
      if (conv) {
        if (ending) return;
        if (backlogDone) conv.push(type, obj);
        else held.push({ type, object: obj });
        if (overflowing()) cutOff();
        return;
      }
      batch.push(w.format === 'table' && !columnsSent ? { type, object: obj } : sharedEvent(hub, shape, key, type, obj, false, now));
      if (batch.length === 1) hub.atBatchEnd(flushBatch);
    };
    const bookmarkLine = (rv: number, annotations?: Record<string, string>) => {
      const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
      if (annotations) metadata.annotations = annotations;
      return Buffer.from(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: w.def.kind, apiVersion: apiVersionOf(w.def.group, w.version), metadata } })}\n`);
    };
    /** A periodic bookmark is dropped when the watcher is behind, as upstream never blocks on one. */
    const bookmark = () => {
      if (closed || behind()) return;
      write([bookmarkLine(Math.max(startRv, reg.store.publishedRevision()))]);
    };

    req.raw.on('close', close);
    res.on('close', close);
    res.on('error', close);
    sock.on('drain', onDrain);
    if (startError !== undefined) {
      backlogDone = true;
      errorEvent(startError);
      return close();
    }
    if (w.timeoutMs <= 0) {
      // A deadline already past: upstream's stream ends before any event.
      backlogDone = true;
      return close();
    }
    sink = live;
    pump();
    if (w.bookmarks && w.format === 'object') {
      const t = setInterval(bookmark, bookmarkEveryMs);
      t.unref();
      cancels.push(() => clearInterval(t));
    }
    cancels.push(longTimeout(() => {
      if (w.bookmarks && w.format === 'object') bookmark();
      close();
    }, w.timeoutMs));
  }
}
