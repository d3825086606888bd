// List then watch one resource over the API's own watch (`?watch=1` from the list's resourceVersion), with
// bookmarks; a 410 Gone relists, a closed stream resumes from the last resourceVersion seen. Events are handed on
// in batches, at most one per animation frame, so hundreds of changes a second cost one render each frame.
import { apiUrl, currentToken, failureOf, headers, type ApiFailure } from './api.js';
import { rec, str, type Obj, type WatchEvent } from './model.js';

export interface WatchHandlers {
  reset(items: Obj[]): void;
  batch(events: WatchEvent[]): void;
  error?(f: ApiFailure | Error | undefined): void;
  /** Refusals (401, 403) are not the auth banner's business: the view shows nothing without them. */
  quiet?: boolean;
}

/** At most this many events wait for the next frame; past it, the watch relists rather than queue more. */
const maxQueued = 100_000;

function nextFrame(fn: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    fn();
  };
  // A hidden tab gets no animation frames: a timer keeps the state current there.
  requestAnimationFrame(once);
  setTimeout(once, 250);
}

export class ListWatch {
  private rv = '';
  private abort: AbortController | undefined;
  private stopped = false;
  private queue: WatchEvent[] = [];
  private scheduled = false;
  private backoff = 500;
  /** The newest resourceVersion handed on (the bench reads it). */
  applied = '';

  constructor(private readonly path: string, private readonly h: WatchHandlers) {}

  start(): this {
    void this.run();
    return this;
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  /** Relist now (e.g. after a new token was pasted). */
  restart(): void {
    this.rv = '';
    this.abort?.abort();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        if (!this.rv) await this.list();
        await this.watch();
        this.backoff = 500;
      } catch (e) {
        if (this.stopped) return;
        if (!(e instanceof DOMException && e.name === 'AbortError')) {
          this.h.error?.(e instanceof Error ? e : new Error(String(e)));
          await new Promise((r) => setTimeout(r, this.backoff));
          this.backoff = Math.min(this.backoff * 2, 10_000);
        }
      }
    }
  }

  private async list(): Promise<void> {
    this.abort = new AbortController();
    const sent = currentToken();
    const res = await fetch(apiUrl(this.path), { headers: headers(), signal: this.abort.signal });
    if (!res.ok) throw await failureOf(res, this.h.quiet, sent);
    const body = rec(await res.json());
    performance.mark(`bonsai-listed ${this.path}`);
    this.queue = [];
    this.rv = str(rec(body.metadata).resourceVersion);
    this.applied = this.rv;
    this.h.reset(Array.isArray(body.items) ? (body.items as Obj[]) : []);
    performance.mark(`bonsai-reset ${this.path}`);
    this.h.error?.(undefined);
  }

  private async watch(): Promise<void> {
    this.abort = new AbortController();
    const url = apiUrl(`${this.path}${this.path.includes('?') ? '&' : '?'}watch=1&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(this.rv)}`);
    const sent = currentToken();
    const res = await fetch(url, { headers: headers(), signal: this.abort.signal });
    if (!res.ok) {
      if (res.status === 410) {
        this.rv = '';
        return;
      }
      throw await failureOf(res, this.h.quiet, sent);
    }
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line && !this.onLine(line)) {
          this.abort.abort();
          return;
        }
      }
      // One event line is bounded: a stream sending no newline is dropped and resumed.
      if (buf.length > 16 * 2 ** 20) throw new Error('watch event too large');
    }
  }

  /** False when the watch must restart (410 Gone: relist). */
  private onLine(line: string): boolean {
    let ev: Obj;
    try {
      ev = rec(JSON.parse(line));
    } catch {
      return true;
    }
    const type = str(ev.type);
    const object = rec(ev.object);
    if (type === 'ERROR') {
      if (object.code === 410) this.rv = '';
      return false;
    }
    const rv = str(rec(object.metadata).resourceVersion);
    if (rv) this.rv = rv;
    if (type === 'BOOKMARK') return true;
    if (this.queue.length >= maxQueued) {
      this.rv = '';
      return false;
    }
    this.queue.push({ type, object });
    if (!this.scheduled) {
      this.scheduled = true;
      nextFrame(() => this.deliver());
    }
    return true;
  }

  private deliver(): void {
    this.scheduled = false;
    const q = this.queue;
    if (!q.length) return;
    this.queue = [];
    this.applied = str(rec(q[q.length - 1]!.object.metadata).resourceVersion);
    this.h.batch(q);
  }
}
