// Streams a list response (a List, a Table, a PartialObjectMetadataList) as its JSON is produced: the envelope,
// then each entry, pulled only as fast as the client reads. No response is ever one string (a list of any size
// stays under V8's string limit) and what waits for a client is bounded: a chunk being written and the socket's
// buffer. A client that stops reading for `stallMs` is cut off; the bytes every list in flight holds are counted
// against a budget, beyond which a list is refused with a 429 (clients retry after a second).
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../util/go-format.js';
import { tooManyRequestsText } from './inflight.js';
import { wantsPretty } from './json-framing.js';

/** A list body: the envelope's fields in order, then the array named `field` of `count` entries. */
export interface ListSpec {
  head: Record<string, unknown>;
  field: string;
  count: number;
  /** The compact JSON text of entry `i` (called once per entry, in order, as the client reads). */
  entry(i: number): string;
}

/** What a chunk is filled to before it is handed to the socket (also the stream's buffer). */
const chunkChars = 64 * 1024;
/** How long a client may take no data before its list is cut off (upstream's default request timeout). */
export const defaultListStallMs = 60_000;
/** The bytes all lists in flight may hold (their snapshots of references and their buffers) by default. */
export const defaultListBudgetBytes = 256 * 1024 * 1024;

/** Bytes held by lists in flight, per server. */
export class ListBudget {
  private used = 0;
  constructor(readonly maxBytes = defaultListBudgetBytes, readonly stallMs = defaultListStallMs) {}
  /** Reserves `bytes`: false when the budget cannot take them (an empty budget takes any one list; `force` any). */
  reserve(bytes: number, force = false): boolean {
    if (!force && this.maxBytes > 0 && this.used > 0 && this.used + bytes > this.maxBytes) return false;
    this.used += bytes;
    return true;
  }
  release(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
  inUse(): number {
    return this.used;
  }
}

/** By HTTP server: every Fastify context of one server (plugins see child instances) shares its budget. */
const budgets = new WeakMap<object, ListBudget>();

export function setListBudget(app: FastifyInstance, budget: ListBudget): void {
  budgets.set(app.server, budget);
}

export function listBudgetOf(app: FastifyInstance): ListBudget {
  let b = budgets.get(app.server);
  if (!b) budgets.set(app.server, (b = new ListBudget()));
  return b;
}

/** The text of a value as Go's MarshalIndent writes it, nested `depth` levels (two spaces each) deep. */
function indented(json: string, depth: number): string {
  let text = json;
  try {
    text = JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    // nested too deep to re-indent: it stays compact
  }
  return depth ? text.replace(/\n/g, `\n${'  '.repeat(depth)}`) : text;
}

/** The text before the first entry, between entries, and after the last one. */
function framing(spec: ListSpec, pretty: boolean): { open: string; sep: string; close: string } {
  const head = JSON.stringify(spec.head, null, pretty ? 2 : undefined);
  const field = JSON.stringify(spec.field);
  if (!pretty) return { open: `${head.slice(0, -1)}${head.length > 2 ? ',' : ''}${field}:[`, sep: ',', close: ']}\n' };
  const body = head.length > 2 ? `${head.slice(0, -2)},\n` : '{\n';
  if (!spec.count) return { open: `${body}  ${field}: []\n}`, sep: '', close: '' };
  return { open: `${body}  ${field}: [\n    `, sep: ',\n    ', close: '\n  ]\n}' };
}

/** The list's JSON, generated a chunk at a time as the reader asks for it. */
export class ListStream extends Readable {
  private next = 0;
  private opened = false;
  private readonly frame: { open: string; sep: string; close: string };
  /** When the reader last asked for data. */
  lastRead = performance.now();

  constructor(private readonly spec: ListSpec, private readonly pretty = false) {
    super({ highWaterMark: chunkChars });
    this.frame = framing(spec, pretty);
  }

  override _read(): void {
    this.lastRead = performance.now();
    const { spec, frame } = this;
    let chunk = '';
    try {
      if (!this.opened) {
        this.opened = true;
        chunk = frame.open;
      }
      while (this.next < spec.count && chunk.length < chunkChars) {
        const text = spec.entry(this.next);
        chunk += (this.next ? frame.sep : '') + (this.pretty ? indented(text, 2) : text);
        this.next++;
      }
      if (this.next >= spec.count) chunk += frame.close;
    } catch (e) {
      this.destroy(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    if (chunk) this.push(this.pretty ? escapeHtml(chunk) : chunk, 'utf8');
    if (this.next >= spec.count) this.push(null);
  }
}

/** The bytes a list holds while it is sent: its snapshot of references and its buffers. */
function heldBytes(count: number): number {
  return count * 8 + 4 * chunkChars;
}

/**
 * Sends `spec` as a streamed 200 (or `code`) JSON response, or a 429 when the lists in flight hold their budget
 * (`force`: the answer to a request already carried out, such as a deletecollection, is never refused).
 * Fastify pipes the stream (hooks and metrics see the reply as usual); the budget is released once it closes.
 */
export function sendList(req: FastifyRequest, reply: FastifyReply, spec: ListSpec, opts: { code?: number; force?: boolean } = {}): void {
  const code = opts.code ?? 200;
  const budget = listBudgetOf(req.server);
  const bytes = heldBytes(spec.count);
  if (!budget.reserve(bytes, opts.force)) {
    reply.code(429).header('Retry-After', '1').header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send(tooManyRequestsText);
    return;
  }
  const stream = new ListStream(spec, wantsPretty(req));
  const res = reply.raw;
  let lastDrain = performance.now();
  const onDrain = () => {
    lastDrain = performance.now();
  };
  res.on('drain', onDrain);
  // A client that takes nothing for stallMs (neither asking for more nor draining what was written) is cut off.
  const timer = setInterval(() => {
    if (performance.now() - Math.max(stream.lastRead, lastDrain) > budget.stallMs) res.destroy();
  }, Math.max(10, Math.min(budget.stallMs / 4, 5_000)));
  timer.unref();
  res.once('close', () => {
    clearInterval(timer);
    res.off('drain', onDrain);
    budget.release(bytes);
    if (!stream.destroyed) stream.destroy();
  });
  reply.code(code).header('Content-Type', 'application/json').send(stream);
}
