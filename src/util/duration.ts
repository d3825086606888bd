// Human-readable durations as kubectl and the API server's table printers show them
// (the rules of apimachinery's pkg/util/duration). Input is a duration in milliseconds.

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
