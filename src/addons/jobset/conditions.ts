// JobSet status conditions as upstream keeps them: a True condition is added, a known one changes in place (keeping
// its transition time when only reason or message change), a False one is never added, and the two startup-policy
// conditions exclude each other. Each change queues an event, emitted once the status write succeeds.
import { rfc3339 } from '../../util/clock.js';
import { cond, type Condition, type JobSet } from './types.js';

export interface PendingEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

/** The status changes of one reconcile: whether to write, and the events to record after the write. */
export interface StatusUpdate {
  changed: boolean;
  events: PendingEvent[];
}

const exclusive = (a: string, b: string) =>
  (a === cond.startupInProgress && b === cond.startupCompleted) || (a === cond.startupCompleted && b === cond.startupInProgress);

/** Applies the condition to `js.status.conditions` (a copy the caller owns); returns whether anything changed. */
export function updateCondition(js: JobSet, next: Omit<Condition, 'lastTransitionTime'>, now: Date): boolean {
  const status = (js.status ??= {});
  const list = (status.conditions ??= []);
  const fresh: Condition = { ...next, lastTransitionTime: rfc3339(now) };
  let found = false;
  let changed = false;
  for (let i = 0; i < list.length; i++) {
    const cur = list[i];
    if (cur.type === fresh.type) {
      found = true;
      if (cur.status !== fresh.status) {
        list[i] = fresh;
        changed = true;
      } else if (cur.reason !== fresh.reason || cur.message !== fresh.message) {
        list[i] = { ...fresh, lastTransitionTime: cur.lastTransitionTime };
        changed = true;
      }
    } else if (exclusive(cur.type, fresh.type) && cur.status === 'True' && fresh.status === 'True') {
      list[i] = { ...cur, status: 'False' };
      changed = true;
    }
  }
  if (!found && fresh.status === 'True') {
    list.push(fresh);
    changed = true;
  }
  return changed;
}

/** Sets a condition and, when it changed, marks the status for writing with an event of the condition's reason. */
export function setCondition(js: JobSet, u: StatusUpdate, type: string, status: 'True' | 'False', reason: string, message: string, eventType: 'Normal' | 'Warning', now: Date): void {
  if (!updateCondition(js, { type, status, reason, message }, now)) return;
  u.changed = true;
  u.events.push({ type: eventType, reason, message });
}

export function isFinished(js: JobSet): boolean {
  return !!js.status?.conditions?.some((c) => (c.type === cond.completed || c.type === cond.failed) && c.status === 'True');
}

/** When the JobSet finished (its Completed or Failed condition's transition), in ms; undefined when it has not. */
export function finishedAtMs(js: JobSet): number | undefined {
  const c = js.status?.conditions?.find((x) => (x.type === cond.completed || x.type === cond.failed) && x.status === 'True');
  return c ? Date.parse(c.lastTransitionTime) : undefined;
}
