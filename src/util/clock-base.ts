// What the scaled and the virtual clock share: their own timer heap (Node's timers cannot be paused or re-timed),
// pause/resume, and stepping: moving simulated time forward instant by instant, letting the work each instant's
// timers start settle before the next instant fires.
import type { Clock } from './clock-interface.js';
import { IdleProbe, probeNextTurn } from './clock-idle.js';
import { delayOf, maxClockMs, TimerHeap } from './clock-timers.js';

export type ClockMode = 'scaled' | 'virtual';

/** What `GET /bonsai/v1/clock` answers. */
export interface ClockStatus {
  mode: ClockMode;
  /** RFC3339 (milliseconds, UTC). */
  now: string;
  /** Simulated seconds per real second (scaled); 0 for the virtual clock, which moves by jumps. */
  speed: number;
  paused: boolean;
}

export interface ClockControl {
  readonly mode: ClockMode;
  readonly paused: boolean;
  readonly speed: number;
  /** Work the clock waits for before it jumps or steps (add sources such as requests being answered). */
  readonly idle: IdleProbe;
  pause(): void;
  resume(): void;
  /**
   * Moves simulated time forward by `ms`, firing the timers due on the way in due order (then creation order),
   * each instant once the work of the previous one has settled; the clock then runs on or stays paused as it was.
   * Resolves at the end. Calls queue behind each other.
   */
  advance(ms: number): Promise<void>;
  /** Pauses the clock and advances it by `ms` (the dashboard's step). */
  step(ms: number): Promise<void>;
  /** Scaled clock: simulated seconds per real second (0 pauses). The virtual clock has no speed and throws. */
  setSpeed(speed: number): void;
  status(): ClockStatus;
  /** Drops every timer and releases the clock's handles (the server closes it). */
  stop(): void;
}

export type ControllableClock = Clock & ClockControl;

export function isControllable(c: Clock): c is ControllableClock {
  const k = c as Partial<ClockControl>;
  return typeof k.pause === 'function' && typeof k.advance === 'function' && typeof k.status === 'function';
}

/** How long one instant of a step may stay busy before the step goes on anyway (a stuck request must not hang it). */
const maxSettleMs = 10_000;

export abstract class OwnTimeClock implements Clock {
  abstract readonly mode: ClockMode;
  abstract readonly speed: number;
  readonly idle = new IdleProbe();
  protected readonly timers = new TimerHeap();
  protected stopped = false;
  /** While a step runs, the clock moves only by it. */
  protected stepping = false;
  private queue: Promise<void> = Promise.resolve();

  abstract get paused(): boolean;
  abstract nowMs(): number;
  abstract pause(): void;
  abstract resume(): void;
  abstract setSpeed(speed: number): void;
  /** Freezes simulated time at `ms` while stepping (`ms` undefined: thaw, time flows from where it stands). */
  protected abstract hold(ms: number | undefined): void;
  /** Called whenever the earliest timer may have changed. */
  protected abstract rearm(): void;

  now(): Date {
    return new Date(this.nowMs());
  }

  setTimeout(fn: () => void, ms: number): () => void {
    return this.add(fn, delayOf(ms));
  }

  setInterval(fn: () => void, ms: number): () => void {
    const every = Math.max(1, Number.isNaN(ms) ? 1 : Math.min(ms, maxClockMs));
    return this.add(fn, every, every);
  }

  private add(fn: () => void, delay: number, every?: number): () => void {
    if (this.stopped || delay === Infinity) return () => undefined;
    const before = this.timers.nextAt();
    const at = this.nowMs() + delay;
    const cancel = this.timers.add(at, fn, every);
    if (before === undefined || at < before) this.rearm();
    return cancel;
  }

  /** Timers still waiting. */
  pending(): number {
    return this.timers.size;
  }

  /** When the earliest waiting timer is due. */
  nextAt(): number | undefined {
    return this.timers.nextAt();
  }

  advance(ms: number): Promise<void> {
    const delay = delayOf(ms);
    const run = this.queue.then(() => this.runStep(delay));
    this.queue = run.catch(() => undefined);
    return run;
  }

  step(ms: number): Promise<void> {
    this.pause();
    return this.advance(ms);
  }

  status(): ClockStatus {
    return { mode: this.mode, now: new Date(this.nowMs()).toISOString(), speed: this.speed, paused: this.paused };
  }

  stop(): void {
    this.stopped = true;
    this.timers.clear();
    this.rearm();
  }

  private async runStep(delay: number): Promise<void> {
    if (this.stopped) return;
    const start = this.nowMs();
    const end = Math.min(maxClockMs, start + (delay === Infinity ? maxClockMs : delay));
    this.stepping = true;
    this.hold(start);
    this.rearm();
    try {
      let at = start;
      for (;;) {
        await this.settle();
        const next = this.timers.nextAt();
        if (this.stopped || next === undefined || next > end) break;
        at = Math.max(at, next);
        this.hold(at);
        this.timers.fireDue(at);
      }
      if (!this.stopped) this.hold(end);
    } finally {
      this.stepping = false;
      this.hold(undefined);
      this.rearm();
    }
  }

  /**
   * Resolves once the process is idle (or the clock stopped, or it stayed busy too long): at the first look, a turn
   * later, when that look finds no work at all (the last instant started none: a periodic check with nothing to
   * do); after work was seen, only when two looks in a row, a turn apart, find none.
   */
  protected settle(): Promise<void> {
    return new Promise((resolve) => {
      const giveUpAt = Date.now() + maxSettleMs;
      let quiet = 0;
      let sawWork = false;
      const look = () => {
        if (this.stopped || Date.now() > giveUpAt) return resolve();
        const s = this.idle.state();
        if (s === 'idle' && (++quiet >= 2 || !sawWork)) return resolve();
        if (s !== 'idle') {
          quiet = 0;
          sawWork = true;
        }
        if (s === 'waiting') setTimeout(look, 1);
        else probeNextTurn(look);
      };
      probeNextTurn(look);
    });
  }
}
