// Large YAML and protobuf bodies are decoded in a worker thread, so that one request at the size limit does not
// hold the event loop for everyone (the yaml library needs seconds for some 3 MiB documents, the protobuf decoder
// builds every map entry twice). The body reader hands such a body to the worker before the handler runs and keeps
// the outcome keyed by the body's Buffer; parseBody then answers from it. JSON is decoded on the main thread (a depth
// pre-scan bounds JSON.parse, which is fast), but a large JSON ConfigMap or Secret is first parsed and checked in the
// worker, which answers for it when it can only be refused (body-precheck.ts). One worker, a bounded queue, a
// generous wall-clock guard.
import { Worker } from 'node:worker_threads';
import { ApiError, type StatusDetails } from '../machinery/errors.js';
import { compiledModuleUrl } from '../util/paths.js';
import { precheckedKind, type BodyTarget } from './body-precheck.js';

export type Decoder = 'yaml' | 'protobuf' | 'json';

/**
 * Bodies from this size on are decoded off the main thread (a few ms of decoding on the main thread at most); JSON
 * bodies only when they are bound for a ConfigMap or Secret, and only to be checked there.
 */
export const offThreadBytes: Record<Decoder, number> = { yaml: 4 * 1024, protobuf: 256 * 1024, json: 512 * 1024 };
/** Bodies waiting for or in the worker at most; more are refused with 429. */
const maxQueued = 256;
/** Bytes of bodies waiting for or in the worker at most (server-side apply sends every object as YAML). */
const maxQueuedBytes = 32 * 1024 * 1024;
/** Past this, a decode is abandoned and the worker replaced (a guard, not a limit correctness depends on). */
const guardMs = 30_000;

/** `json`: the decoded value as JSON text; `checked`: a JSON body that passed its checks, for the main thread to parse. */
interface Outcome { json?: string; checked?: boolean; error?: { code: number; reason: string; message: string; details?: StatusDetails }; crash?: string }
interface Pending { raw: Buffer; contentType: string; target: BodyTarget; done: (o: Outcome) => void }

const outcomes = new WeakMap<Buffer, { decoder: Decoder; outcome: Outcome }>();

export function decoderFor(mediaType: string): Decoder | undefined {
  if (mediaType === '' || mediaType === 'application/json') return 'json';
  if (mediaType === 'application/yaml' || mediaType === 'application/apply-patch+yaml') return 'yaml';
  if (mediaType === 'application/vnd.kubernetes.protobuf') return 'protobuf';
  return undefined;
}

let worker: Worker | undefined;
let nextId = 1;
const queue: (Pending & { id: number })[] = [];
let running: (Pending & { id: number; timer: NodeJS.Timeout }) | undefined;

function startWorker(): Worker {
  const w = new Worker(compiledModuleUrl('api/body-decode-worker.js'));
  w.on('message', (m: Outcome & { id: number }) => {
    if (!running || running.id !== m.id) return;
    const r = running;
    clearTimeout(r.timer);
    running = undefined;
    r.done(m);
    pump();
  });
  const lost = (why: string) => {
    if (worker !== w) return;
    worker = undefined;
    const r = running;
    running = undefined;
    if (r) {
      clearTimeout(r.timer);
      r.done({ crash: why });
    }
    pump();
  };
  w.on('error', (e) => lost(e.message));
  w.on('exit', (code) => lost(`the body decoder exited with ${code}`));
  // After the listeners: adding a 'message' listener refs the worker's port again.
  w.unref();
  return w;
}

function pump(): void {
  if (running) return;
  const job = queue.shift();
  if (!job) return;
  let w: Worker;
  try {
    w = worker ??= startWorker();
  } catch (e) {
    job.done({ crash: e instanceof Error ? e.message : String(e) });
    return pump();
  }
  const timer = setTimeout(() => {
    // The worker is stuck on this body: replace it; the request gets an answer of its own.
    const r = running;
    running = undefined;
    worker = undefined;
    void w.terminate();
    r?.done({ error: { code: 400, reason: 'BadRequest', message: 'the request body could not be decoded in time' } });
    pump();
  }, guardMs);
  timer.unref();
  running = { ...job, timer };
  w.postMessage({ id: job.id, raw: new Uint8Array(job.raw), contentType: job.contentType, target: job.target });
}

/** Decodes `raw` in the worker when its type and size call for it; resolves when parseBody can answer from it. */
export function predecode(raw: Buffer, mediaType: string, contentType: string, target: BodyTarget): Promise<void> | undefined {
  const decoder = decoderFor(mediaType);
  if (!decoder || raw.length < offThreadBytes[decoder]) return undefined;
  if (decoder === 'json' && !precheckedKind(target)) return undefined;
  const queuedBytes = queue.reduce((n, j) => n + j.raw.length, running?.raw.length ?? 0);
  if (queue.length + (running ? 1 : 0) >= maxQueued || queuedBytes + raw.length > maxQueuedBytes) {
    outcomes.set(raw, { decoder, outcome: { error: { code: 429, reason: 'TooManyRequests', message: 'too many large request bodies are being decoded, please try again later' } } });
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    queue.push({ id: nextId++, raw, contentType, target, done: (outcome) => {
      outcomes.set(raw, { decoder, outcome });
      resolve();
    } });
    pump();
  });
}

/** What the worker made of `raw` for `decoder`: `{ value }`, or undefined when it was not decoded there. */
export function predecoded(raw: Buffer, decoder: Decoder): { value: unknown } | undefined {
  const hit = outcomes.get(raw);
  if (!hit || hit.decoder !== decoder) return undefined;
  const { json, checked, error, crash } = hit.outcome;
  if (error) throw new ApiError(error.code, error.reason, error.message, error.details);
  if (crash !== undefined) throw new Error(`decoding the request body failed: ${crash}`);
  if (checked) return undefined;
  return { value: json === undefined ? undefined : (JSON.parse(json) as unknown) };
}
