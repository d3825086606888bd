// Missed-schedule arithmetic of the CronJob controller: which start time (if any) is due now, how many were missed,
// and when to look again. All times are epoch milliseconds on the controller's clock.
import type { Schedule } from './schedule.js';

export type Missed = 'none' | 'few' | 'many';

/** The inputs the math reads from a CronJob. */
export interface ScheduleState {
  creationMs: number;
  lastScheduleMs?: number;
  startingDeadlineSeconds?: number;
}

export interface MostRecent {
  /** The point the search started from: last schedule time (or creation), moved up to the deadline window. */
  earliestMs: number;
  /** The latest start time in (earliest, now], if any. */
  mostRecentMs?: number;
  missed: Missed;
  /** Set when the schedule is well formed but cannot be evaluated (it never fires, or fires twice a second). */
  error?: string;
}

/** More missed start times than this and the controller warns (TooManyMissedTimes). */
export const tooManyMissed = 100;
/** Upstream requeues 100ms after the next start time, to be sure it has passed. */
export const nextScheduleDeltaMs = 100;

/**
 * The most recent start time that should have happened by `nowMs`. With `includeDeadline` the search starts no
 * earlier than now - startingDeadlineSeconds. The count of missed times is estimated from the gap between the first
 * two start times (as upstream does), so a schedule decades behind costs a few iterations, not millions.
 */
export function mostRecentScheduleTime(state: ScheduleState, nowMs: number, sched: Schedule, includeDeadline: boolean): MostRecent {
  let earliestMs = state.lastScheduleMs ?? state.creationMs;
  if (includeDeadline && state.startingDeadlineSeconds !== undefined) {
    const windowStart = nowMs - state.startingDeadlineSeconds * 1000;
    if (windowStart > earliestMs) earliestMs = windowStart;
  }
  const never = { earliestMs, missed: 'none' as const, error: 'time difference between two schedules is less than 1 second' };
  const t1 = sched.next(earliestMs);
  if (t1 === undefined) return never;
  if (nowMs < t1) return { earliestMs, missed: 'none' };
  const t2 = sched.next(t1);
  if (t2 === undefined) return never;
  if (nowMs < t2) return { earliestMs, mostRecentMs: t1, missed: 'none' };
  const gapSeconds = Math.round((t2 - t1) / 1000);
  if (gapSeconds < 1) return never;
  const elapsedSeconds = Math.trunc((nowMs - t1) / 1000);
  const count = Math.floor(elapsedSeconds / gapSeconds) + 1;
  // Jump close to now, one gap further back than the estimate, and let the schedule find the exact times.
  const from = t1 + (count - 2) * gapSeconds * 1000;
  let mostRecentMs: number | undefined;
  for (let t = sched.next(from); t !== undefined && t <= nowMs; t = sched.next(t)) mostRecentMs = t;
  const missed: Missed = count > tooManyMissed ? 'many' : count > 0 ? 'few' : 'none';
  return mostRecentMs === undefined ? { earliestMs, missed } : { earliestMs, mostRecentMs, missed };
}

/** The start time due now (within the deadline window), or undefined; `missed` tells whether to warn. */
export function dueScheduleTime(state: ScheduleState, nowMs: number, sched: Schedule): { dueMs?: number; missed: Missed; error?: string } {
  const r = mostRecentScheduleTime(state, nowMs, sched, true);
  if (r.mostRecentMs === undefined || r.mostRecentMs > nowMs) return { missed: 'none', error: r.error };
  return { dueMs: r.mostRecentMs, missed: r.missed, error: r.error };
}

/** Milliseconds until the controller should look again: the next start time after the last one handled, plus a margin. */
export function nextRequeueDelay(state: ScheduleState, nowMs: number, sched: Schedule): number | undefined {
  const r = mostRecentScheduleTime(state, nowMs, sched, false);
  let base: number;
  if (r.error) base = nowMs;
  else if (r.mostRecentMs !== undefined) base = r.mostRecentMs;
  else base = r.missed === 'none' ? r.earliestMs : nowMs;
  const next = sched.next(base);
  return next === undefined ? undefined : next + nextScheduleDeltaMs - nowMs;
}
