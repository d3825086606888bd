// Run-time bound on one evaluation. Evaluation is synchronous, so one module-level meter serves every call:
// comprehension loops charge, once an iteration, the nodes their condition and step evaluate (the engine wraps
// each loop condition), and library functions charge their work (string length / 10, list sizes, as upstream's
// cost model). The cost limit is counted, never timed: the same expression over the same data gets the same
// verdict on any machine. Once the count passes the limit every further charge fails, so loops stop at their
// next iteration and the caller reports upstream's "actual cost limit exceeded".
//
// Apart from the count, a generous wall-clock guard (several seconds, far beyond what any expression within
// the cost limit needs) cancels a runaway evaluation with its own message, so it is never mistaken for the
// deterministic cost verdict.

export const costLimitExceeded = 'operation cancelled: actual cost limit exceeded';
export const evaluationTimedOut = 'operation cancelled: evaluation timed out';

/** The wall-clock guard's default: several seconds, only a safety net (the cost limit is what bounds work). */
export const defaultTimeGuardMs = 5_000;
let timeGuardMs = defaultTimeGuardMs;

let remaining = Number.POSITIVE_INFINITY;
let spent = 0;
let deadline = Number.POSITIVE_INFINITY;
let exhausted = false;
let timedOut = false;
let sinceClock = 0;

/** Sets the wall-clock guard (Infinity disables it); returns the previous value. For tests. */
export function setTimeGuardMs(ms: number): number {
  const prev = timeGuardMs;
  timeGuardMs = ms;
  return prev;
}

export function startMeter(limit: number): void {
  remaining = limit;
  spent = 0;
  exhausted = false;
  timedOut = false;
  sinceClock = 0;
  deadline = Number.isFinite(timeGuardMs) ? performance.now() + timeGuardMs : Number.POSITIVE_INFINITY;
}

/** Ends a metered evaluation; returns what it cost, whether it ran out and whether the guard cancelled it. */
export function stopMeter(): { cost: number; exhausted: boolean; timedOut: boolean } {
  const r = { cost: spent, exhausted, timedOut };
  remaining = Number.POSITIVE_INFINITY;
  deadline = Number.POSITIVE_INFINITY;
  exhausted = false;
  timedOut = false;
  return r;
}

/** Charges `n` units; throws (which @bufbuild/cel turns into an error value) once the budget is gone. */
export function charge(n: number): void {
  spent += n;
  remaining -= n;
  if (exhausted) throw new Error(costLimitExceeded);
  if (timedOut) throw new Error(evaluationTimedOut);
  if (remaining < 0) {
    exhausted = true;
    throw new Error(costLimitExceeded);
  }
  sinceClock += n;
  if (sinceClock >= 4096 && deadline !== Number.POSITIVE_INFINITY) {
    sinceClock = 0;
    if (performance.now() > deadline) {
      timedOut = true;
      throw new Error(evaluationTimedOut);
    }
  }
}

/** Cost of a string operation over `len` characters (upstream charges 0.1 a byte). */
export const chargeString = (len: number) => charge(1 + Math.ceil(len / 10));

/**
 * Cost of a regular expression over a string (cel-go's and Kubernetes' model: the string's traversal, 0.1 a
 * character plus one, times a quarter of the pattern's length, a guess at its number of terms).
 */
export const regexCost = (len: number, patternLen: number) => 1 + Math.ceil((len + 1) / 10) * Math.max(1, Math.ceil(patternLen / 4));
export const chargeRegex = (len: number, patternLen: number) => charge(regexCost(len, patternLen));
