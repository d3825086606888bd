// Container output, kept in memory per pod uid and container: the current run and the previous one. Lines carry
// the clock time at which the simulated process printed them; lines in the future are not visible yet.
import type { Clock } from '../util/clock.js';

export interface LogLine {
  atMs: number;
  text: string;
}

interface Run {
  startMs: number;
  lines: LogLine[];
  endMs?: number;
  /** Lines appended while running that pushed the oldest ones out (followers count lines from the start). */
  dropped: number;
}

const maxLinesPerRun = 5000;

export class LogStore {
  private readonly runs = new Map<string, Run[]>();
  /** The containers with runs, by pod uid (so forgetting a pod does not look at every other pod's output). */
  private readonly containersOf = new Map<string, Set<string>>();
  private readonly listeners = new Map<string, Set<() => void>>();
  constructor(private readonly clock: Clock) {}

  private key(uid: string, container: string): string {
    return `${uid}/${container}`;
  }

  private notify(key: string): void {
    for (const fn of [...(this.listeners.get(key) ?? [])]) fn();
  }

  /** A new run of a container begins at `startMs`; `lines` are offsets from the start. */
  start(uid: string, container: string, startMs: number, lines: LogLine[]): void {
    const key = this.key(uid, container);
    const list = this.runs.get(key) ?? [];
    const cur = list[list.length - 1];
    if (cur && cur.endMs === undefined) cur.endMs = startMs;
    let kept: LogLine[] = [];
    if (lines.length) {
      const abs = lines.map((l, i) => ({ atMs: startMs + l.atMs, text: l.text, i }));
      abs.sort((a, b) => a.atMs - b.atMs || a.i - b.i);
      kept = abs.slice(0, maxLinesPerRun).map(({ atMs, text }) => ({ atMs, text }));
    }
    list.push({ startMs, lines: kept, dropped: 0 });
    while (list.length > 2) list.shift();
    this.runs.set(key, list);
    let containers = this.containersOf.get(uid);
    if (!containers) this.containersOf.set(uid, (containers = new Set()));
    containers.add(container);
    this.notify(key);
  }

  /** The current run stopped at `atMs`: later lines were never printed. */
  end(uid: string, container: string, atMs: number): void {
    const key = this.key(uid, container);
    const cur = this.runs.get(key)?.at(-1);
    if (!cur || cur.endMs !== undefined) return;
    cur.endMs = atMs;
    cur.lines = cur.lines.filter((l) => l.atMs <= atMs);
    this.notify(key);
  }

  /**
   * A line the running container prints now (a simulated server answering a request). False when the container
   * has no running run. The oldest lines make room once a run holds the maximum.
   */
  append(uid: string, container: string, text: string): boolean {
    const key = this.key(uid, container);
    const cur = this.runs.get(key)?.at(-1);
    if (!cur || cur.endMs !== undefined) return false;
    const now = this.clock.nowMs();
    let at = cur.lines.length;
    while (at > 0 && cur.lines[at - 1].atMs > now) at--;
    cur.lines.splice(at, 0, { atMs: now, text });
    if (cur.lines.length > maxLinesPerRun) {
      const extra = cur.lines.length - maxLinesPerRun;
      cur.lines.splice(0, extra);
      cur.dropped += extra;
    }
    this.notify(key);
    return true;
  }

  /** Forgets a pod's output (the pod is gone). */
  drop(uid: string): void {
    const containers = this.containersOf.get(uid);
    if (!containers) return;
    this.containersOf.delete(uid);
    for (const container of containers) {
      const key = this.key(uid, container);
      if (this.runs.delete(key)) this.notify(key);
    }
  }

  has(uid: string, container: string, previous: boolean): boolean {
    const list = this.runs.get(this.key(uid, container)) ?? [];
    return previous ? list.length >= 2 : list.length >= 1;
  }

  /** Lines printed so far by the current (or previous) run. */
  lines(uid: string, container: string, previous: boolean): LogLine[] {
    const list = this.runs.get(this.key(uid, container)) ?? [];
    const run = previous ? list.at(-2) : list.at(-1);
    if (!run) return [];
    const now = this.clock.nowMs();
    return run.lines.filter((l) => l.atMs <= now);
  }

  /**
   * Streams the current run's lines after the first `skip` ones as they are printed; `onEnd` when the run stops
   * (or the pod's output is dropped). Returns a cancel function.
   */
  follow(uid: string, container: string, skip: number, onLine: (l: LogLine) => void, onEnd: () => void): () => void {
    const key = this.key(uid, container);
    const run = this.runs.get(key)?.at(-1);
    // `skip` counts the lines a read just returned; `sent` counts from the run's first line ever printed.
    let sent = skip + (run?.dropped ?? 0);
    let cancelTimer: (() => void) | undefined;
    let done = false;
    const listeners = this.listeners.get(key) ?? new Set<() => void>();
    this.listeners.set(key, listeners);
    const stop = () => {
      done = true;
      cancelTimer?.();
      listeners.delete(pump);
      if (listeners.size === 0) this.listeners.delete(key);
    };
    function pump(this: void): void {
      if (done) return;
      cancelTimer?.();
      cancelTimer = undefined;
      const now = clockNow();
      if (!run || !stillStored()) {
        stop();
        onEnd();
        return;
      }
      sent = Math.max(sent, run.dropped);
      while (sent - run.dropped < run.lines.length && run.lines[sent - run.dropped].atMs <= now) onLine(run.lines[sent++ - run.dropped]);
      if (run.endMs !== undefined && sent - run.dropped >= run.lines.length) {
        stop();
        onEnd();
        return;
      }
      const next = run.lines[sent - run.dropped];
      if (next) cancelTimer = setTimer(pump, Math.max(1, next.atMs - now));
    }
    const clockNow = () => this.clock.nowMs();
    const setTimer = (fn: () => void, ms: number) => this.clock.setTimeout(fn, ms);
    const stillStored = () => (this.runs.get(key) ?? []).includes(run!);
    listeners.add(pump);
    pump();
    return stop;
  }
}
