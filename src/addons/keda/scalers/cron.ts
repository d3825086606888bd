// The cron scaler: desiredReplicas while the clock is between a start and an end schedule (five-field cron in a
// time zone), 0 otherwise; active inside the window. Time is the simulated clock's.
import { createRequire } from 'node:module';
import type { CronExpressionParser as Parser } from 'cron-parser';
import { intParam, metricNameWithIndex, normalizeString, param, type ScalerConfig } from '../metadata.js';
import { externalTargetType, target, type Scaler } from './scaler.js';

let parser: typeof Parser | undefined;
function cronParser(): typeof Parser {
  parser ??= (createRequire(import.meta.url)('cron-parser') as { CronExpressionParser: typeof Parser }).CronExpressionParser;
  return parser;
}

/** The first time strictly after `afterMs` the five-field expression fires in `tz`. */
export function nextFire(expr: string, tz: string, afterMs: number): number {
  const e = cronParser().parse(expr, { tz, currentDate: new Date(afterMs) });
  const t = e.next().getTime();
  return t > afterMs ? t : e.next().getTime();
}

function checkSchedule(expr: string, which: 'start' | 'end'): void {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) throw new Error(`error parsing ${which} schedule: expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  try {
    cronParser().parse(expr, { tz: 'UTC', currentDate: new Date(0) });
  } catch (err) {
    throw new Error(`error parsing ${which} schedule: ${(err as Error).message}`);
  }
}

function knownZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** Whether `nowMs` is inside the window (as upstream decides it: the next end comes no later than the next start). */
export function inCronWindow(start: string, end: string, tz: string, nowMs: number): boolean {
  return nextFire(end, tz, nowMs) <= nextFire(start, tz, nowMs);
}

export function cronScaler(cfg: ScalerConfig): Scaler {
  const targetType = (() => {
    try {
      return externalTargetType(cfg.metricType);
    } catch (err) {
      throw new Error(`error getting scaler metric type: ${(err as Error).message}`);
    }
  })();
  let start: string, end: string, timezone: string, desired: number;
  try {
    start = param(cfg, 'start')!;
    end = param(cfg, 'end')!;
    timezone = param(cfg, 'timezone')!;
    desired = intParam(cfg, 'desiredReplicas')!;
    checkSchedule(start, 'start');
    checkSchedule(end, 'end');
    if (start === end) throw new Error('start and end can not have exactly same time input');
    if (desired === 0) throw new Error('no desiredReplicas specified');
  } catch (err) {
    throw new Error(`error parsing cron metadata: ${(err as Error).message}`);
  }
  const compact = (s: string) => s.replace(/ /g, '').replace(/\*/g, 'x').replace(/\//g, 'Sl').replace(/\?/g, 'Qm').replace(/,/g, 'Cm');
  const name = metricNameWithIndex(cfg.triggerIndex, normalizeString(`cron-${timezone}-${compact(start)}-${compact(end)}`));
  return {
    type: 'cron',
    metricSpec: () => ({ type: 'External', external: { metric: { name }, target: target(targetType, '1') } }),
    read(env) {
      const tz = timezone === '' ? 'UTC' : timezone;
      if (!knownZone(tz)) throw new Error(`unable to load timezone: unknown time zone ${timezone}`);
      const active = inCronWindow(start, end, tz, env.clock.nowMs());
      return { value: active ? desired : 0, active };
    },
  };
}

