// A CronJob schedule as something that answers "when is the next start strictly after t?", with the semantics of
// the robfig/cron standard parser the upstream controller uses: five fields, the @hourly-style descriptors,
// `@every <duration>`, and an optional time zone (spec.timeZone, or a legacy `TZ=`/`CRON_TZ=` prefix).
import { createRequire } from 'node:module';
import type { CronExpressionParser as Parser } from 'cron-parser';
import { cronError } from '../../machinery/cron.js';
import { parseGoDuration } from '../../util/duration.js';

// cron-parser (with luxon) is loaded on the first CronJob, not at start-up, which it would slow by ~15 ms.
let parser: typeof Parser | undefined;
function cronParser(): typeof Parser {
  parser ??= (createRequire(import.meta.url)('cron-parser') as { CronExpressionParser: typeof Parser }).CronExpressionParser;
  return parser;
}

export interface Schedule {
  /** The first start time strictly after `afterMs`, or undefined when the schedule never fires again. */
  next(afterMs: number): number | undefined;
}

const descriptorExpr: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

/** robfig's ConstantDelaySchedule: at least one second, whole seconds, counted from the second `t` falls in. */
function everySchedule(delayMs: number): Schedule {
  const delay = Math.max(1000, delayMs - (delayMs % 1000));
  return { next: (afterMs) => Math.floor(afterMs / 1000) * 1000 + delay };
}

function cronSchedule(expr: string, tz: string): Schedule {
  let probe: ReturnType<typeof Parser.parse> | undefined;
  try {
    probe = cronParser().parse(expr, { tz, currentDate: new Date(0) });
  } catch {
    // A grammatically valid expression that can never match (`0 0 31 2 *`): it never fires.
    probe = undefined;
  }
  return {
    next(afterMs) {
      if (!probe) return undefined;
      try {
        const e = cronParser().parse(expr, { tz, currentDate: new Date(afterMs) });
        const t = e.next().getTime();
        // The parser works at second precision; a start exactly at `afterMs` is not "after" it.
        return t > afterMs ? t : e.next().getTime();
      } catch {
        return undefined;
      }
    },
  };
}

/** Whether `tz` names an IANA time zone this runtime knows (`UTC` included, `Local` excluded). */
export function knownTimeZone(tz: string): boolean {
  if (!tz || tz.toLowerCase() === 'local') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/**
 * Parses a CronJob schedule. `timeZone` is spec.timeZone (undefined: UTC, the controller's zone). Throws an Error
 * whose message is the parser's complaint when the schedule is not valid cron.
 */
export function parseSchedule(schedule: string, timeZone?: string): Schedule {
  let spec = schedule.trim();
  let tz = timeZone ?? 'UTC';
  const prefix = spec.match(/^(?:CRON_TZ|TZ)=(\S+)\s+/);
  if (prefix) {
    if (!knownTimeZone(prefix[1])) throw new Error(`provided bad location ${prefix[1]}: unknown time zone ${prefix[1]}`);
    tz = prefix[1];
    spec = spec.slice(prefix[0].length).trim();
  }
  const err = cronError(spec);
  if (err) throw new Error(err);
  if (spec.startsWith('@every ')) {
    const ms = parseGoDuration(spec.slice(7).trim());
    if (ms === undefined) throw new Error(`failed to parse duration ${spec}`);
    return everySchedule(ms);
  }
  return cronSchedule(descriptorExpr[spec] ?? spec, tz);
}
