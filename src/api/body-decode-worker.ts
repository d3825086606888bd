// Decodes large YAML and protobuf request bodies off the main thread (see body-off-thread.ts): receives
// {id, raw, contentType, target}, runs the same decoder the main thread would and the checks of body-precheck.ts, and
// posts back the result as JSON text (nothing for JSON, which the main thread parses itself) or the ApiError it threw
// (its code, reason, message and details).
import { parentPort } from 'node:worker_threads';
import { ApiError } from '../machinery/errors.js';
import { mediaType, parseBody } from './body.js';
import { precheck, type BodyTarget } from './body-precheck.js';
import { decoderFor } from './body-off-thread.js';

interface Job { id: number; raw: Uint8Array; contentType: string; target: BodyTarget }

parentPort?.on('message', (job: Job) => {
  try {
    const raw = Buffer.from(job.raw.buffer, job.raw.byteOffset, job.raw.byteLength);
    const value = parseBody(raw, job.contentType);
    precheck(value, job.target);
    if (decoderFor(mediaType(job.contentType)) === 'json') parentPort?.postMessage({ id: job.id, checked: true });
    else parentPort?.postMessage({ id: job.id, json: value === undefined ? undefined : JSON.stringify(value) });
  } catch (e) {
    if (e instanceof ApiError) parentPort?.postMessage({ id: job.id, error: { code: e.code, reason: e.reason, message: e.message, details: e.details } });
    else parentPort?.postMessage({ id: job.id, crash: e instanceof Error ? e.message : String(e) });
  }
});
