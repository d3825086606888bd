// Reads request bodies up to kube-apiserver's limit (3 MiB). A body over the limit is read on and thrown away,
// so that a client still writing it reads the 413 Status instead of a reset connection (EPIPE); the draining is
// bounded in bytes and time, past which the answer goes out and the connection closes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { tooLarge, type ApiError } from '../machinery/errors.js';
import { predecode } from './body-off-thread.js';
import { mediaType } from './body.js';

export const maxBodyBytes = 3 * 1024 * 1024;
/** How much of an over-size body is drained at most before the connection is given up. */
const maxDrainBytes = 16 * maxBodyBytes;
const maxDrainMs = 10_000;

/** 413s whose body was read to its end: their connection stays usable (Fastify closes it after parser errors). */
const drained = new WeakSet<ApiError>();

/** Whether an error answer may keep its connection open. */
export function keepsConnection(err: unknown): boolean {
  return drained.has(err as ApiError);
}

function readBody(req: FastifyRequest, payload: NodeJS.ReadableStream, done: (err: Error | null, body?: Buffer) => void): void {
  // A declared length past the drain bound is refused at once (upstream reads nothing past limit+1 either).
  if (Number(req.headers['content-length']) > maxDrainBytes) return done(tooLarge());
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = (err: Error | null, body?: Buffer) => {
    if (finished) return;
    finished = true;
    if (timer) clearTimeout(timer);
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
    done(err, body);
  };
  const giveUp = () => {
    payload.pause();
    finish(tooLarge());
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (over) {
      if (size > maxDrainBytes) giveUp();
      return;
    }
    if (size > maxBodyBytes) {
      over = true;
      chunks.length = 0;
      timer = setTimeout(giveUp, maxDrainMs);
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    if (!over) {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size);
      // Large YAML and protobuf bodies are decoded in a worker before the handler runs (body-off-thread.ts).
      const ct = String(req.headers['content-type'] ?? '');
      const pending = predecode(body, mediaType(ct), ct, { method: req.method, url: req.url });
      if (!pending) return finish(null, body);
      payload.removeListener('data', onData);
      void pending.then(() => finish(null, body));
      return;
    }
    const e = tooLarge();
    drained.add(e);
    finish(e);
  };
  const onError = (err: Error) => finish(err);
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

/** Every body, whatever its type, arrives as a Buffer (or undefined); handlers decode by Content-Type. */
export function installBodyReader(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (req, payload, done) => readBody(req, payload, done));
}
