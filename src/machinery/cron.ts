// Cron schedule checks worded like the robfig/cron v3 standard parser that upstream CronJob validation uses.
interface Bounds { min: number; max: number; names?: Record<string, number> }
const months = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const days = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const fields: Bounds[] = [
  { min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, { min: 1, max: 12, names: months }, { min: 0, max: 6, names: days },
];
const descriptors = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** A field the parser refuses; cronError turns it into its text (no other error is caught). */
class CronSyntaxError extends Error {}

function parseInt10(expr: string): number {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new CronSyntaxError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new CronSyntaxError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseValue(expr: string, b: Bounds): number {
  const named = b.names?.[expr.toLowerCase()];
  return named !== undefined ? named : parseInt10(expr);
}

function checkRange(expr: string, b: Bounds): void {
  const slash = expr.split('/');
  const hyphen = slash[0].split('-');
  let start: number;
  let end: number;
  const star = slash[0] === '*' || slash[0] === '?';
  if (star) {
    start = b.min;
    end = b.max;
  } else {
    start = parseValue(hyphen[0], b);
    if (hyphen.length === 1) end = start;
    else if (hyphen.length === 2) end = parseValue(hyphen[1], b);
    else throw new CronSyntaxError(`too many hyphens: ${expr}`);
  }
  if (slash.length === 2) {
    const step = parseInt10(slash[1]);
    if (step <= 0) throw new CronSyntaxError(`step of range should be a positive number: ${expr}`);
    if (!star && hyphen.length === 1) end = b.max;
  } else if (slash.length > 2) {
    throw new CronSyntaxError(`too many slashes: ${expr}`);
  }
  if (start < b.min) throw new CronSyntaxError(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new CronSyntaxError(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new CronSyntaxError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
}

const durationRe = /^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$/;

/** The parser's error text for a bad schedule, or undefined when the schedule parses. */
export function cronError(schedule: string): string | undefined {
  const spec = schedule.trim();
  if (!spec) return 'empty spec string';
  if (spec.startsWith('@')) {
    if (spec.startsWith('@every ')) {
      const d = spec.slice(7).trim();
      return durationRe.test(d) ? undefined : `failed to parse duration @every ${d}: time: invalid duration ${JSON.stringify(d)}`;
    }
    return descriptors.includes(spec) ? undefined : `unrecognized descriptor: ${spec}`;
  }
  const parts = spec.split(/\s+/);
  if (parts.length !== 5) return `expected exactly 5 fields, found ${parts.length}: [${parts.join(' ')}]`;
  try {
    parts.forEach((p, i) => p.split(',').forEach((r) => checkRange(r, fields[i])));
  } catch (e) {
    if (e instanceof CronSyntaxError) return e.message;
    throw e;
  }
  return undefined;
}
