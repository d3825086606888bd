// Watch events of a custom resource watched in another version than its storage version, converted by the CRD's
// conversion webhook before they are written: one ConversionReview per event, as kube-apiserver's watch encoder
// converts each event's object on its way out. A watch keeps its order: conversions run a few at a time
// (maxInFlight) and their results leave strictly in the order the events came, so a slow answer holds back only
// this watch's later events. The first failure ends the watch after the events before it; upstream's watch server
// logs "unable to encode watch object" and ends the stream the same way, without an ERROR event.
import type { KObject } from '../machinery/types.js';
import type { WatchEvent, WatchEventType } from '../registry/read.js';

/** What the converter hands back, in order: converted events, and lines (bookmarks) that waited their turn. */
export type ConvertedItem = Buffer | WatchEvent;

export interface ConverterSink {
  /** The next items in order, ready to write (called with at least one). */
  ready(items: ConvertedItem[]): void;
  /** The conversion of the event after those already handed over failed: nothing else follows. */
  failed(error: unknown): void;
}

interface Pending {
  type: WatchEventType;
  obj: KObject;
  started: boolean;
  done: boolean;
  result?: KObject;
  error?: unknown;
  failed: boolean;
}

type Entry = Pending | Buffer;

/** Converts events for one watch, at most `maxInFlight` at once, and hands them to `sink` in arrival order. */
export class OrderedConverter {
  private entries: Entry[] = [];
  private head = 0;
  private inFlight = 0;
  private stopped = false;

  constructor(
    private readonly convert: (obj: KObject) => Promise<KObject>,
    private readonly maxInFlight: number,
    private readonly sink: ConverterSink,
  ) {}

  /** Events and lines not yet handed over (in flight, waiting to start, or done behind an unfinished one). */
  get size(): number {
    return this.entries.length - this.head;
  }

  push(type: WatchEventType, obj: KObject): void {
    if (this.stopped) return;
    this.entries.push({ type, obj, started: false, done: false, failed: false });
    this.startMore();
  }

  /** A line written as it is, once every event before it is out. */
  pushLine(line: Buffer): void {
    if (this.stopped) return;
    this.entries.push(line);
    if (this.size === 1) this.handOver();
  }

  /** Drops everything; answers still to come are ignored. */
  stop(): void {
    this.stopped = true;
    this.entries = [];
    this.head = 0;
  }

  private startMore(): void {
    for (let i = this.head; i < this.entries.length && this.inFlight < this.maxInFlight; i++) {
      const e = this.entries[i];
      if (Buffer.isBuffer(e) || e.started) continue;
      e.started = true;
      this.inFlight++;
      this.convert(e.obj).then((out) => {
        e.result = out;
      }, (err: unknown) => {
        e.error = err;
        e.failed = true;
      }).finally(() => {
        e.done = true;
        this.inFlight--;
        if (this.stopped) return;
        this.handOver();
        this.startMore();
      });
    }
  }

  /** Hands over the finished entries at the head, in order; stops at the first failure. */
  private handOver(): void {
    const out: ConvertedItem[] = [];
    let failure: { error: unknown } | undefined;
    while (this.head < this.entries.length) {
      const e = this.entries[this.head];
      if (Buffer.isBuffer(e)) out.push(e);
      else if (!e.done) break;
      else if (e.failed) {
        failure = { error: e.error };
        break;
      } else out.push({ type: e.type, object: e.result! });
      this.head++;
    }
    // The array is compacted now and then rather than shifted entry by entry.
    if (this.head > 64 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    if (out.length) this.sink.ready(out);
    if (failure && !this.stopped) {
      this.stop();
      this.sink.failed(failure.error);
    }
  }
}
