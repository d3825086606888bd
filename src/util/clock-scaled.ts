// Simulated time running at a multiple of real time, which can be paused, re-timed and stepped. Timers live in
// the clock's own heap; one real (unreferenced) Node timer waits for the earliest of them.
import { OwnTimeClock } from './clock-base.js';
import { maxClockMs } from './clock-timers.js';

/** The longest delay Node's timers take. */
const maxTimerMs = 2 ** 31 - 1;
/** The fastest a scaled clock runs. */
export const maxClockSpeed = 1e6;

export class ScaledClock extends OwnTimeClock {
  readonly mode = 'scaled' as const;
  private rate: number;
  private isPaused: boolean;
  private anchorSim: number;
  private anchorReal = Date.now();
  private held: number | undefined;
  private real: NodeJS.Timeout | undefined;

  /** `speed` 0 starts the clock paused (it then resumes at speed 1). */
  constructor(speed = 1, origin = Date.now()) {
    super();
    this.isPaused = speed === 0;
    this.rate = Number.isFinite(speed) && speed > 0 ? Math.min(speed, maxClockSpeed) : 1;
    this.anchorSim = origin;
  }

  get speed(): number {
    return this.rate;
  }

  get paused(): boolean {
    return this.isPaused;
  }

  nowMs(): number {
    if (this.held !== undefined) return this.held;
    if (this.isPaused) return this.anchorSim;
    return Math.min(maxClockMs, this.anchorSim + (Date.now() - this.anchorReal) * this.rate);
  }

  pause(): void {
    if (this.isPaused) return;
    this.reanchor();
    this.isPaused = true;
    this.rearm();
  }

  resume(): void {
    if (!this.isPaused) return;
    this.anchorReal = Date.now();
    this.isPaused = false;
    this.rearm();
  }

  /** Simulated seconds per real second, up to a million; 0 pauses (keeping the speed to resume at). Paused stays paused. */
  setSpeed(speed: number): void {
    if (!Number.isFinite(speed) || speed < 0 || speed > maxClockSpeed) throw new RangeError(`speed must be a number from 0 to ${maxClockSpeed}`);
    if (speed === 0) return this.pause();
    this.reanchor();
    this.rate = speed;
    this.rearm();
  }

  private reanchor(): void {
    this.anchorSim = this.nowMs();
    this.anchorReal = Date.now();
  }

  protected hold(ms: number | undefined): void {
    if (ms !== undefined) {
      this.held = ms;
      return;
    }
    if (this.held === undefined) return;
    this.anchorSim = this.held;
    this.anchorReal = Date.now();
    this.held = undefined;
  }

  protected rearm(): void {
    if (this.real) clearTimeout(this.real);
    this.real = undefined;
    if (this.stopped || this.isPaused || this.stepping) return;
    const next = this.timers.nextAt();
    if (next === undefined) return;
    const delay = Math.min(maxTimerMs, Math.max(0, (next - this.nowMs()) / this.rate));
    this.real = setTimeout(() => this.onTimer(), delay);
    this.real.unref();
  }

  private onTimer(): void {
    this.real = undefined;
    if (this.stopped || this.isPaused || this.stepping) return;
    this.timers.fireDue(this.nowMs());
    this.rearm();
  }
}
