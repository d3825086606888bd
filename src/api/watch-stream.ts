// Streams a watch as newline-delimited JSON events over a chunked 200 response.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../machinery/errors.js';
import { apiVersionOf, type KObject } from '../machinery/types.js';
import type { Registry, WatchOptions } from '../registry/registry.js';
import type { WatchEventType } from '../registry/read.js';
import type { ResourceDef } from '../registry/resource.js';
import { partialBody, served, tableBody, type OutputFormat } from './output.js';

export interface WatchRequest {
  def: ResourceDef;
  version: string;
  namespace: string | undefined;
  opts: WatchOptions;
  format: OutputFormat;
  includeObject?: string;
  bookmarks: boolean;
  timeoutSeconds?: number;
}

/** Open watches, so that shutdown can end them. */
export const openWatches = new Set<() => void>();

const maxBuffered = 16 * 1024 * 1024;
const bookmarkEveryMs = 5_000;

export function streamWatch(reg: Registry, w: WatchRequest, req: FastifyRequest, reply: FastifyReply): void {
  // Start the watch before any byte is sent: bad requests (selectors, parameters) are a plain 4xx response as
  // upstream answers them; only errors upstream reports inside the stream (410 Expired) become ERROR events.
  // Events produced while subscribing (initial state, replay) wait until the headers are out.
  let pending: Array<[WatchEventType, KObject]> | undefined = [];
  let sink: (type: WatchEventType, obj: KObject) => void = (type, obj) => pending!.push([type, obj]);
  let stopWatch: (() => void) | undefined;
  let startError: unknown;
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
  let first = true;
  let closed = false;
  const timers: NodeJS.Timeout[] = [];
  const close = () => {
    if (closed) return;
    closed = true;
    stopWatch?.();
    for (const t of timers) clearTimeout(t), clearInterval(t);
    openWatches.delete(close);
    if (!res.writableEnded) res.end();
  };
  openWatches.add(close);
  const send = (type: string, object: unknown) => {
    if (closed) return;
    res.write(`${JSON.stringify({ type, object })}\n`);
    if (res.writableLength > maxBuffered) close(); // a slow client is cut off rather than buffered without bound
  };
  const event = (type: string, obj: KObject) => {
    let payload: unknown;
    if (w.format === 'table') payload = tableBody(w.def, w.version, [obj], { resourceVersion: obj.metadata.resourceVersion }, w.includeObject, first, reg.clock.now());
    else if (w.format === 'partial') payload = partialBody(served(w.def, w.version, obj));
    else payload = served(w.def, w.version, obj);
    first = false;
    send(type, payload);
  };
  const bookmark = (annotations?: Record<string, string>) => {
    const metadata: Record<string, unknown> = { resourceVersion: String(reg.store.revision()) };
    if (annotations) metadata.annotations = annotations;
    send('BOOKMARK', { kind: w.def.kind, apiVersion: apiVersionOf(w.def.group, w.version), metadata });
  };
  req.raw.on('close', close);
  res.on('close', close);
  res.on('error', close);
  if (startError !== undefined) {
    const e = startError;
    const status = e instanceof ApiError ? e.toStatus() : new ApiError(500, 'InternalError', String(e)).toStatus();
    send('ERROR', status);
    close();
    return;
  }
  for (const [type, obj] of pending ?? []) event(type, obj);
  pending = undefined;
  sink = event;
  if (w.opts.sendInitialEvents && w.bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
  if (w.bookmarks && w.format === 'object') {
    const t = setInterval(() => bookmark(), bookmarkEveryMs);
    t.unref();
    timers.push(t);
  }
  const timeout = (w.timeoutSeconds && w.timeoutSeconds > 0 ? w.timeoutSeconds : 1800 + Math.floor(Math.random() * 1800)) * 1000;
  const t = setTimeout(() => {
    if (w.bookmarks && w.format === 'object') bookmark();
    close();
  }, timeout);
  t.unref();
  timers.push(t);
}
