// Streams a watch as newline-delimited JSON events over a chunked 200 response. Each batch of committed changes
// reaches a watcher as one write of shared, once-encoded event lines. A watcher whose socket stops taking data is
// cut off once more than maxPendingEvents events wait for it, as kube-apiserver's cacher terminates a watcher
// whose channel stays full: its socket is reset and everything it held is released; the client watches again.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../machinery/errors.js';
import { apiVersionOf, type KObject } from '../machinery/types.js';
import type { Registry, WatchOptions } from '../registry/registry.js';
import type { WatchEventType } from '../registry/read.js';
import type { ResourceDef } from '../registry/resource.js';
import type { OutputFormat } from './output.js';
import { encodeEvent, shapeKey, sharedEvent, type WatchShape } from './watch-encoding.js';
import { longTimeout } from './watch-timeout.js';

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

/** Open watches, so that shutdown can end them. */
export const openWatches = new Set<() => void>();

/** Watchers cut off for not keeping up, by "resource.group" (upstream's apiserver_terminated_watchers_total). */
export const terminatedWatchers = new Map<string, number>();

/** Events that may wait for a watcher whose socket takes no more: upstream's per-watcher channel size without an index. */
export const maxPendingEvents = 100;
/** Bytes that may wait for one watcher (its socket's buffer and its queue), whatever the count of events. */
const maxPendingBytes = 16 * 1024 * 1024;
/** Events from before the stream started (initial state, replay) are written in chunks of about this size. */
const backlogChunkBytes = 64 * 1024;
const bookmarkEveryMs = 5_000;
const crlf = Buffer.from('\r\n');

type Queued = { type: WatchEventType; obj: KObject } | Buffer;

export function streamWatch(reg: Registry, w: WatchRequest, req: FastifyRequest, reply: FastifyReply): void {
  // Start the watch before any byte is sent: bad requests (selectors, parameters) are a plain 4xx response as
  // upstream answers them; only errors upstream reports inside the stream (410 Expired) become ERROR events.
  // Events produced while subscribing (initial state, replay) wait until the headers are out.
  const backlog: Queued[] = [];
  let sink: (type: WatchEventType, obj: KObject) => void = (type, obj) => backlog.push({ type, obj });
  let stopWatch: (() => void) | undefined;
  let startError: unknown;
  const startRv = reg.store.revision();
  try {
    stopWatch = reg.watch(w.def, w.namespace, w.opts, (type, obj) => sink(type, obj));
  } catch (e) {
    if (e instanceof ApiError && (e.code === 400 || e.code === 422)) throw e;
    startError = e;
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  const sock = res.socket;
  if (!sock || sock.destroyed) {
    // The client left before the stream began.
    stopWatch?.();
    return;
  }

  const hub = reg.store.hub;
  const shape: WatchShape = { def: w.def, version: w.version, format: w.format, includeObject: w.includeObject };
  const key = shapeKey(shape);
  const now = () => reg.clock.now();
  let closed = false;
  /** Written data the socket has not taken yet ('drain' pending): later events queue. */
  let blocked = false;
  let backlogAt = 0;
  /** Live events produced while blocked: the socket has not accepted them. */
  let queue: Buffer[] = [];
  let queuedEvents = 0;
  let queuedBytes = 0;
  /** Events of the batch being published, written together when it ends. */
  let batch: Buffer[] = [];
  let columnsSent = false;
  const cancels: Array<() => void> = [];

  const onDrain = () => {
    blocked = false;
    pump();
  };
  const release = () => {
    closed = true;
    sock.off('drain', onDrain);
    stopWatch?.();
    stopWatch = undefined;
    for (const c of cancels) c();
    cancels.length = 0;
    openWatches.delete(close);
    backlog.length = 0;
    queue = [];
    batch = [];
  };
  /** Ends the stream; a socket that is not taking data is reset rather than left holding the rest. */
  const close = (): void => {
    if (closed) return;
    const stuck = blocked || backlogAt < backlog.length || queue.length > 0;
    release();
    if (stuck) sock.destroy();
    else if (!res.writableEnded) res.end();
  };
  const cutOff = () => {
    if (closed) return;
    const resource = w.def.group ? `${w.def.plural}.${w.def.group}` : w.def.plural;
    terminatedWatchers.set(resource, (terminatedWatchers.get(resource) ?? 0) + 1);
    reg.log.info(
      `Forcing ${resource} watcher close due to unresponsiveness: key: "/${w.def.plural}${w.namespace ? `/${w.namespace}` : ''}", ` +
      `labels: "${w.opts.labelSelector ?? ''}", fields: "${w.opts.fieldSelector ?? ''}". pending events = ${queuedEvents}, buffered bytes = ${sock.writableLength + queuedBytes}`,
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
  const encodeOwn = (type: WatchEventType, obj: KObject) => {
    const line = encodeEvent(shape, type, obj, !columnsSent, now());
    columnsSent = true;
    return line;
  };
  /** Writes the backlog, then queued live events, while the socket takes them. */
  const pump = () => {
    while (!closed && !blocked) {
      if (backlogAt < backlog.length) {
        const parts: Buffer[] = [];
        let bytes = 0;
        while (backlogAt < backlog.length && bytes < backlogChunkBytes) {
          const item = backlog[backlogAt++];
          const line = Buffer.isBuffer(item) ? item : encodeOwn(item.type, item.obj);
          parts.push(line);
          bytes += line.length;
        }
        if (backlogAt === backlog.length) backlog.length = backlogAt = 0;
        write(parts);
      } else if (queue.length) {
        const parts = queue;
        queue = [];
        queuedEvents = queuedBytes = 0;
        write(parts);
      } else break;
    }
  };
  const flushBatch = () => {
    const parts = batch;
    batch = [];
    if (closed || !parts.length) return;
    if (!blocked && backlogAt >= backlog.length) {
      write(parts);
      if (sock.writableLength > maxPendingBytes) cutOff();
      return;
    }
    for (const p of parts) queue.push(p), queuedBytes += p.length;
    queuedEvents += parts.length;
    if (queuedEvents > maxPendingEvents || queuedBytes + sock.writableLength > maxPendingBytes) cutOff();
  };
  const live = (type: WatchEventType, obj: KObject) => {
    if (closed) return;
    const line = columnsSent || w.format !== 'table' ? sharedEvent(hub, shape, key, type, obj, false, now) : encodeOwn(type, obj);
    columnsSent = true;
    batch.push(line);
    if (batch.length === 1) hub.atBatchEnd(flushBatch);
  };
  const bookmarkLine = (rv: number, annotations?: Record<string, string>) => {
    const metadata: Record<string, unknown> = { resourceVersion: String(rv) };
    if (annotations) metadata.annotations = annotations;
    return Buffer.from(`${JSON.stringify({ type: 'BOOKMARK', object: { kind: w.def.kind, apiVersion: apiVersionOf(w.def.group, w.version), metadata } })}\n`);
  };
  /** A periodic bookmark is dropped when the watcher is behind, as upstream never blocks on one. */
  const bookmark = () => {
    if (closed || blocked || backlogAt < backlog.length || queue.length) return;
    write([bookmarkLine(Math.max(startRv, reg.store.publishedRevision()))]);
  };

  req.raw.on('close', close);
  res.on('close', close);
  res.on('error', close);
  sock.on('drain', onDrain);
  if (startError !== undefined) {
    const e = startError;
    const status = e instanceof ApiError ? e.toStatus() : new ApiError(500, 'InternalError', String(e)).toStatus();
    write([Buffer.from(`${JSON.stringify({ type: 'ERROR', object: status })}\n`)]);
    close();
    return;
  }
  if (w.timeoutMs <= 0) {
    // A deadline already past: upstream's stream ends before any event.
    backlog.length = 0;
    close();
    return;
  }
  if (w.opts.sendInitialEvents && w.bookmarks) backlog.push(bookmarkLine(startRv, { 'k8s.io/initial-events-end': 'true' }));
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
