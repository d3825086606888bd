// How long a watch lasts, read from `timeoutSeconds` as kube-apiserver reads it: the first value, parsed as a
// Go int64 (a 400 with strconv's wording otherwise), turned into a Go time.Duration (nanoseconds in an int64,
// wrapping on overflow), where 0 means the server's default (minRequestTimeout of 1800 s times a random factor
// in [1, 2)) and a negative duration ends the watch at once. Upstream does not cap the value otherwise.
import { badRequest } from '../machinery/errors.js';
import { goQuote } from '../machinery/go-quote.js';
import type { Query } from './query.js';

const minRequestTimeoutSeconds = 1800;
const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;

/** The watch's duration in ms: > 0 runs that long, <= 0 ends the watch at once. */
export function watchTimeoutMs(q: Query, random: () => number = Math.random): number {
  const raw = q.timeoutSeconds;
  const v = Array.isArray(raw) ? raw[0] : raw;
  if (v === undefined) return defaultMs(random);
  if (!/^[+-]?[0-9]+$/.test(v)) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: invalid syntax`);
  const seconds = BigInt(v);
  if (seconds < int64Min || seconds > int64Max) throw badRequest(`strconv.ParseInt: parsing ${goQuote(v)}: value out of range`);
  const nanos = BigInt.asIntN(64, seconds * 1_000_000_000n);
  if (nanos === 0n) return defaultMs(random);
  // Whole milliseconds, rounded away from zero so that a positive duration never becomes "at once".
  return nanos > 0n ? Number((nanos + 999_999n) / 1_000_000n) : Number(nanos / 1_000_000n) || -1;
}

function defaultMs(random: () => number): number {
  return Math.floor(minRequestTimeoutSeconds * (random() + 1) * 1000);
}

/** Node timers hold at most 2^31-1 ms; a longer wait is made of several of them. */
const maxTimerMs = 2 ** 31 - 1;

/** Calls `fn` after `ms` (any finite length, unref'd timers); returns a cancel function. */
export function longTimeout(fn: () => void, ms: number): () => void {
  const due = Date.now() + ms;
  let t: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = due - Date.now();
    if (left <= 0) return fn();
    t = setTimeout(left > maxTimerMs ? arm : fn, Math.min(left, maxTimerMs));
    t.unref();
  };
  arm();
  return () => clearTimeout(t);
}
