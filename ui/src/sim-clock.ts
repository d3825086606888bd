// The simulated clock as the dashboard knows it: GET /bonsai/v1/clock every few seconds, extrapolated in between at
// the clock's speed, so ages ("5m") read as kubectl's AGE would against the simulated cluster.
import { useEffect, useState } from 'preact/hooks';
import { getJson, request } from './api.js';
import { rec, str, type Obj } from './model.js';

export interface ClockState {
  mode: string;
  /** Simulated ms since the epoch when fetched. */
  at: number;
  speed: number;
  paused: boolean;
  /** Browser time when fetched. */
  fetched: number;
}

let current: ClockState | undefined;
let lastError = '';
const listeners = new Set<() => void>();

function accept(body: unknown): void {
  const c = rec(body);
  const at = Date.parse(str(c.now ?? c.time));
  current = { mode: str(c.mode), at: Number.isFinite(at) ? at : Date.now(), speed: typeof c.speed === 'number' ? c.speed : 1, paused: c.paused === true, fetched: Date.now() };
  lastError = '';
  for (const fn of listeners) fn();
}

function fail(e: unknown): void {
  lastError = e instanceof Error ? e.message : String(e);
  for (const fn of listeners) fn();
}

export function refreshClock(): void {
  getJson('/bonsai/v1/clock').then(accept, fail);
}

export function postClock(body: Obj): void {
  request('POST', '/bonsai/v1/clock', body).then(accept, fail);
}

/** Simulated now in ms (the browser's own time until the clock answered). */
export function simNow(): number {
  if (!current) return Date.now();
  if (current.paused || current.mode === 'virtual') return current.at;
  return current.at + (Date.now() - current.fetched) * current.speed;
}

let timer: ReturnType<typeof setInterval> | undefined;

/** The clock, re-rendering the caller when it is fetched and every `tickMs` in between. */
export function useClock(tickMs = 1000): { clock: ClockState | undefined; error: string } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const fn = () => setTick((t) => t + 1);
    listeners.add(fn);
    if (!timer) {
      refreshClock();
      timer = setInterval(refreshClock, 5000);
    }
    const t = setInterval(fn, tickMs);
    return () => {
      listeners.delete(fn);
      clearInterval(t);
      if (!listeners.size && timer) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  }, [tickMs]);
  return { clock: current, error: lastError };
}

/** kubectl's AGE: 45s, 5m, 3h12m, 2d4h. */
export function age(fromMs: number, nowMs = simNow()): string {
  const s = Math.max(0, Math.floor((nowMs - fromMs) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
  const d = Math.floor(h / 24);
  return d < 8 ? `${d}d${h % 24 ? `${h % 24}h` : ''}` : `${d}d`;
}

/** A timestamp in the browser's local time, without milliseconds. */
export function localTime(ms: number, withDate = true): string {
  const d = new Date(ms);
  return withDate
    ? d.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}
