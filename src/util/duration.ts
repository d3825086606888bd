// Durations: human-readable as kubectl and the API server's table printers show them (the rules of apimachinery's
// pkg/util/duration, input in milliseconds), and Go's time.Duration text, both ways.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Whole units of `unit` in `ms`, truncated toward zero like a Go integer conversion. */
function whole(ms: number, unit: number): number {
  return Math.trunc(ms / unit);
}

/**
 * Clock skew of up to (but excluding) two seconds into the future is shown as `0s`; anything further
 * in the future is `<invalid>`. Returns undefined when the duration is not negative beyond that.
 */
function skew(ms: number): string | undefined {
  if (!Number.isFinite(ms)) return '<invalid>';
  const seconds = whole(ms, SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  return undefined;
}

/** Two to three significant figures: `45s`, `3m20s`, `95m`, `5h12m`, `30h`, `3d4h`, `120d`, `2y10d`, `9y`. */
export function humanDuration(ms: number): string {
  const early = skew(ms);
  if (early !== undefined) return early;
  const seconds = whole(ms, SECOND);
  if (seconds < 120) return `${seconds}s`;

  const minutes = whole(ms, MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;

  const hours = whole(ms, HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;

  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;

  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** One unit only: `45s`, `3m`, `5h`, `120d`, `2y`. */
export function shortHumanDuration(ms: number): string {
  const early = skew(ms);
  if (early !== undefined) return early;
  const seconds = whole(ms, SECOND);
  if (seconds < 60) return `${seconds}s`;
  const minutes = whole(ms, MINUTE);
  if (minutes < 60) return `${minutes}m`;
  const hours = whole(ms, HOUR);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(ms / HOUR / 24 / 365)}y`;
}

function fraction(v: bigint, digits: number): string {
  const s = v.toString().padStart(digits, '0').replace(/0+$/, '');
  return s ? '.' + s : '';
}

/** Formats nanoseconds as Go's time.Duration.String() does: `1h2m3.5s`, `150ms`, `0s`. */
export function formatGoDuration(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const u = nanos < 0n ? -nanos : nanos;
  if (u < 1000n) return `${sign}${u}ns`;
  if (u < 1000000n) return `${sign}${u / 1000n}${fraction(u % 1000n, 3)}µs`;
  if (u < 1000000000n) return `${sign}${u / 1000000n}${fraction(u % 1000000n, 6)}ms`;
  const totalSeconds = u / 1000000000n;
  let out = `${totalSeconds % 60n}${fraction(u % 1000000000n, 9)}s`;
  const totalMinutes = totalSeconds / 60n;
  if (totalMinutes > 0n) {
    out = `${totalMinutes % 60n}m${out}`;
    const hours = totalMinutes / 60n;
    if (hours > 0n) out = `${hours}h${out}`;
  }
  return sign + out;
}

/** A duration in milliseconds as Go's time.Duration prints it, to the millisecond: `200ms`, `1.5s`, `5m0s`. */
export function formatGoDurationMs(ms: number): string {
  return formatGoDuration(BigInt(Math.round(ms)) * 1_000_000n);
}

const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A Go duration string (`90s`, `1h30m`, `1.5h`) in milliseconds, or undefined when it does not parse. */
export function parseGoDuration(text: string): number | undefined {
  const re = /([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let pos = 0;
  if (!text) return undefined;
  for (;;) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) break;
    total += Number(m[1]) * unitMs[m[2]];
    pos = re.lastIndex;
    if (pos === text.length) return total;
  }
  return undefined;
}
