// Streams a list response (a List, a Table, a PartialObjectMetadataList) as its JSON is produced: the envelope,
// then each entry, pulled only as fast as the client reads. No response is ever one string (a list of any size
// stays under V8's string limit) and what waits for a client is bounded: a chunk being written and the socket's
// buffer. A client that stops reading for `stallMs` is cut off; the bytes every list in flight holds are counted
// against a budget, beyond which a list is refused with a 429 (clients retry after a second).
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { escapeHtml } from '../util/go-format.js';
import { ChunkWriter } from './chunk-writer.js';
import { tooManyRequestsText } from './inflight.js';
import { wantsPretty } from './json-framing.js';

/** A list body: the envelope's fields in order, then the array named `field` of `count` entries. */
export interface ListSpec {
  head: Record<string, unknown>;
  field: string;
  count: number;
  /** The compact JSON text of entry `i` (called once per entry, in order, as the client reads). */
  entry(i: number): string;
  /**
   * Optionally, entries `from` to `to` (excluded) at once, faster than one by one: `emit` is called in order with
   * either the compact JSON text of one entry, or (`array`) the compact JSON text of an array of consecutive entries,
   * byte for byte `[` + their texts joined by commas + `]`. Used for compact output, `entry` for pretty output.
   */
  entries?(from: number, to: number, emit: (text: string, array: boolean) => void): void;
}

/** The stream's buffer: the next chunk is produced once the last one was taken (one is ready while the socket drains one). */
const streamBufferBytes = 1;
/** The first chunk's size; chunks double from it up to the list's largest (see chunkCap). */
const firstChunkBytes = 64 * 1024;
/**
 * The largest chunk handed to the socket. Larger chunks cost less CPU per list (1 MiB: -18% at 150k pods, half the
 * client's) but, under many concurrent lists, outlive scavenges and raise the RSS peak (1 MiB: 35-90 MB more with 10
 * lists of 150k). 256 KiB takes most of the CPU saving (bench/list-cpu.mjs at 60k pods: 380-400 ms of server CPU per
 * full list against 420 ms with 64 KiB) for a quarter of the memory.
 */
export const maxChunkBytes = 256 * 1024;
/** About the most entry text serialized at once (one JSON.stringify of a run of entries). */
const maxRunBytes = 64 * 1024;
/** Chunks a recycling list remembers as possibly in flight, at most. */
const maxTracked = 4;
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

/** The largest chunk of a list of `count` entries. */
function chunkCap(count: number): number {
  return Math.min(maxChunkBytes, Math.max(firstChunkBytes, count * 128));
}

/** The list's JSON, generated a chunk at a time as the reader asks for it, encoded straight into Buffers. */
export class ListStream extends Readable {
  private next = 0;
  private opened = false;
  private readonly frame: { open: string; sep: string; close: string };
  private readonly out: ChunkWriter;
  /** When the reader last asked for data. */
  lastRead = performance.now();
  /** The bytes its consumer (the response) has taken and not yet written, when chunks are recycled (recycleWritten). */
  private inFlight: (() => number) | undefined;
  /** Chunks pushed and maybe still being written, oldest first (only while recycling; at most maxTracked). */
  private readonly sent: Buffer[] = [];

  constructor(private readonly spec: ListSpec, private readonly pretty = false) {
    super({ highWaterMark: streamBufferBytes });
    this.frame = framing(spec, pretty);
    this.out = new ChunkWriter(firstChunkBytes, chunkCap(spec.count));
  }

  /**
   * Reuses the memory of chunks once written: `inFlight` tells the bytes the consumer has taken and not yet written
   * (an HTTP response's writableLength: its buffer and its socket's, framing and headers included), which are the
   * newest chunks pushed, in order. Only for a consumer that writes every chunk as it takes it and keeps none after.
   */
  recycleWritten(inFlight: () => number): void {
    this.inFlight = inFlight;
  }

  /**
   * Hands the chunks written since back to the writer. The bytes not written yet (still in this stream's buffer, then
   * taken by the consumer and not yet written) are those of the newest chunks, in order, plus framing and headers:
   * walking back from the newest chunk, counting its bytes alone, every chunk older than the one that covers them is
   * written. Counting no framing errs on the safe side: at worst one chunk more is kept.
   */
  private reclaim(): void {
    const inFlight = this.inFlight;
    if (!inFlight || !this.sent.length) return;
    let pending = this.readableLength + inFlight();
    let i = this.sent.length;
    while (i > 0 && pending > 0) pending -= this.sent[--i].length;
    if (pending > 0) return;
    for (const chunk of this.sent.splice(0, i)) this.out.recycle(chunk);
  }

  override _read(): void {
    this.lastRead = performance.now();
    this.reclaim();
    const { spec, out } = this;
    try {
      if (!this.opened) {
        this.opened = true;
        out.text(this.pretty ? escapeHtml(this.frame.open) : this.frame.open);
      }
      if (spec.entries && !this.pretty) this.runs(spec.entries.bind(spec));
      else this.oneByOne();
      if (this.next >= spec.count) out.text(this.pretty ? escapeHtml(this.frame.close) : this.frame.close);
    } catch (e) {
      this.destroy(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const end = this.next >= spec.count;
    for (const chunk of out.take(end)) {
      if (this.inFlight) {
        // Never more than a few: past them the oldest is simply left to the collector.
        if (this.sent.length >= maxTracked) this.sent.shift();
        this.sent.push(chunk);
      }
      this.push(chunk);
    }
    if (end) this.push(null);
  }

  /** Entry texts, each on its own, until a chunk is filled. */
  private oneByOne(): void {
    const { spec, out, frame } = this;
    while (this.next < spec.count && !out.hasChunk()) {
      const text = spec.entry(this.next);
      if (this.next) out.text(frame.sep);
      out.text(this.pretty ? escapeHtml(indented(text, 2)) : text);
      this.next++;
    }
  }

  /** Runs of entries encoded at once, each sized to fit what is left of the chunk, until a chunk is filled. */
  private runs(entries: NonNullable<ListSpec['entries']>): void {
    const { spec, out } = this;
    let first = this.next === 0;
    const emit = (text: string, array: boolean) => {
      if (array) {
        if (text.length <= 2) return;
        out.entries(text, first);
      } else {
        if (!first) out.text(',');
        out.text(text);
      }
      first = false;
    };
    while (this.next < spec.count && !out.hasChunk()) {
      // Entries so far tell their mean size (the first run is short); a run that would not fit starts a new chunk.
      const mean = this.next > 0 ? Math.max(1, out.written / this.next) : 4096;
      let n = Math.floor(Math.min(out.room() * 0.9, maxRunBytes) / mean);
      if (n < 1 && this.next > 0) {
        out.endChunk();
        n = Math.floor(Math.min(out.room() * 0.9, maxRunBytes) / mean);
      }
      const to = Math.min(spec.count, this.next + Math.max(1, n));
      entries(this.next, to, emit);
      this.next = to;
    }
  }
}

/**
 * The bytes a list holds while it is sent: its snapshot of references and its buffers (the chunk being filled, one
 * ready, one being written, and up to two written ones kept to be filled again).
 */
function heldBytes(count: number): number {
  return count * 8 + 5 * chunkCap(count);
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
  // Piped straight into the response (no hook put another stream between): written chunks are filled again.
  const onPipe = (src: unknown) => {
    if (src === stream) stream.recycleWritten(() => res.writableLength);
  };
  res.once('pipe', onPipe);
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
    res.off('pipe', onPipe);
    res.off('drain', onDrain);
    budget.release(bytes);
    if (!stream.destroyed) stream.destroy();
  });
  reply.code(code).header('Content-Type', 'application/json').send(stream);
}
