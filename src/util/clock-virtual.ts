// Virtual time: simulated time stands still while the process has work, and jumps to the next due timer once it
// has none (two looks in a row, a turn apart, found no queued callbacks, no I/O in flight and no request being
// answered). An hourly CronJob or a 5-minute back-off then takes milliseconds, and the same inputs give the same
// order of events: timers due at one instant fire by creation order, and each instant's work settles first.
import { OwnTimeClock } from './clock-base.js';

export interface VirtualClockOptions {
  /** Where simulated time starts (default: now). */
  start?: number | Date;
  /** Start paused: time moves only by advance/step until resumed. */
  paused?: boolean;
}

export class VirtualClock extends OwnTimeClock {
  readonly mode = 'virtual' as const;
  readonly speed = 0;
  private current: number;
  private isPaused: boolean;
  private running = false;

  constructor(opts: VirtualClockOptions = {}) {
    super();
    const start = opts.start ?? Date.now();
    this.current = typeof start === 'number' ? start : start.getTime();
    this.isPaused = !!opts.paused;
  }

  get paused(): boolean {
    return this.isPaused;
  }

  nowMs(): number {
    return this.current;
  }

  pause(): void {
    this.isPaused = true;
  }

  resume(): void {
    if (!this.isPaused) return;
    this.isPaused = false;
    this.rearm();
  }

  setSpeed(): void {
    throw new RangeError('the virtual clock has no speed: it jumps to the next timer whenever the process is idle');
  }

  protected hold(ms: number | undefined): void {
    if (ms !== undefined && ms > this.current) this.current = ms;
  }

  private halted(): boolean {
    return this.stopped || this.isPaused || this.stepping;
  }

  protected rearm(): void {
    if (this.running || this.halted() || this.timers.size === 0) return;
    this.running = true;
    void this.run();
  }

  private async run(): Promise<void> {
    try {
      while (!this.halted() && this.timers.nextAt() !== undefined) {
        await this.settle();
        if (this.halted()) break;
        const next = this.timers.nextAt();
        if (next === undefined) break;
        if (next > this.current) this.current = next;
        this.timers.fireDue(this.current);
      }
    } finally {
      this.running = false;
    }
  }
}
