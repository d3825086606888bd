// The one clock that controllers, the scheduler and kubelets read: scaled (a multiple of real time, pausable and
// steppable: clock-scaled.ts) or virtual (jumps to the next timer whenever the process is idle: clock-virtual.ts).
// Whatever simulates behaviour (timestamps, delays, periods) reads it; only genuinely real-time matters (HTTP and
// watch timeouts, audit, certificates, caches) read Date.now().
import type { Clock } from './clock-interface.js';

export type { Clock };
export { ScaledClock, maxClockSpeed } from './clock-scaled.js';
export { VirtualClock, type VirtualClockOptions } from './clock-virtual.js';
export { isControllable, type ClockControl, type ClockMode, type ClockStatus, type ControllableClock } from './clock-base.js';

let renderedSecond = NaN;
let rendered = '';

/** RFC3339 with second precision, as Kubernetes renders metav1.Time (the last second's text is reused). */
export function rfc3339(d: Date): string {
  const second = Math.floor(d.getTime() / 1000);
  if (second !== renderedSecond) {
    renderedSecond = second;
    rendered = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return rendered;
}
/**
 * A zero metav1.Time as Kubernetes serializes it: JSON null (e.g. a pod condition's lastProbeTime). The generated
 * types say `string`, as Go's field is a struct, so this one value stands for it.
 */
export const nullTime = null as unknown as string;

/** RFC3339 with microseconds, as Kubernetes renders metav1.MicroTime. */
export function rfc3339Micro(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** A clock that stands still until a test advances it; due timers fire in time order (then in creation order). */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void; every?: number }>();
  constructor(start: number | Date = Date.UTC(2026, 0, 1)) {
    this.current = typeof start === 'number' ? start : start.getTime();
  }
  nowMs(): number {
    return this.current;
  }
  now(): Date {
    return new Date(this.current);
  }
  setTimeout(fn: () => void, ms: number): () => void {
    const id = ++this.seq;
    this.timers.set(id, { at: this.current + Math.max(0, ms), fn });
    return () => void this.timers.delete(id);
  }
  setInterval(fn: () => void, ms: number): () => void {
    const id = ++this.seq;
    const every = Math.max(1, ms);
    this.timers.set(id, { at: this.current + every, fn, every });
    return () => void this.timers.delete(id);
  }
  /** Moves time forward by `ms`, firing every timer that falls due on the way, each at its own time. */
  advance(ms: number): void {
    const end = this.current + Math.max(0, ms);
    for (;;) {
      let next: [number, { at: number; fn: () => void; every?: number }] | undefined;
      for (const entry of this.timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      const [id, t] = next;
      this.current = Math.max(this.current, t.at);
      if (t.every) t.at += t.every;
      else this.timers.delete(id);
      t.fn();
    }
    this.current = end;
  }
  /** Timers still waiting. */
  pending(): number {
    return this.timers.size;
  }
  /** When the earliest waiting timer is due (undefined: none). */
  nextAt(): number | undefined {
    let at: number | undefined;
    for (const t of this.timers.values()) if (at === undefined || t.at < at) at = t.at;
    return at;
  }
}
