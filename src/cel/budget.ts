// Run-time bound on one evaluation. Each evaluation has its own meter (see `metered`):
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

/** Sets the wall-clock guard (Infinity disables it); returns the previous value. For tests. */
export function setTimeGuardMs(ms: number): number {
  const prev = timeGuardMs;
  timeGuardMs = ms;
  return prev;
}

/** The meter of one evaluation: what it may still spend and what it spent. */
class Meter {
  spent = 0;
  exhausted = false;
  timedOut = false;
  private sinceClock = 0;
  private readonly deadline = Number.isFinite(timeGuardMs) ? performance.now() + timeGuardMs : Number.POSITIVE_INFINITY;

  constructor(private remaining: number) {}

  charge(n: number): void {
    this.spent += n;
    this.remaining -= n;
    if (this.exhausted) throw new Error(costLimitExceeded);
    if (this.timedOut) throw new Error(evaluationTimedOut);
    if (this.remaining < 0) {
      this.exhausted = true;
      throw new Error(costLimitExceeded);
    }
    this.sinceClock += n;
    if (this.sinceClock >= 4096 && this.deadline !== Number.POSITIVE_INFINITY) {
      this.sinceClock = 0;
      if (performance.now() > this.deadline) {
        this.timedOut = true;
        throw new Error(evaluationTimedOut);
      }
    }
  }
}

/**
 * The meter of the evaluation running now. Evaluation is synchronous, so this names one call in progress (the
 * library functions it calls charge it), never state that outlives the call or is shared between servers.
 */
let active: Meter | undefined;

/** Meters `run` with `limit` units; returns its result, what it cost, whether it ran out and whether the guard cancelled it. */
export function metered<T>(limit: number, run: () => T): { result: T; cost: number; exhausted: boolean; timedOut: boolean } {
  const outer = active;
  const m = (active = new Meter(limit));
  try {
    return { result: run(), cost: m.spent, exhausted: m.exhausted, timedOut: m.timedOut };
  } finally {
    active = outer;
  }
}

/** Charges `n` units to the running evaluation; throws (which @bufbuild/cel turns into an error value) once its budget is gone. */
export function charge(n: number): void {
  active?.charge(n);
}

/** Cost of a string operation over `len` characters (upstream charges 0.1 a byte). */
export const chargeString = (len: number) => charge(1 + Math.ceil(len / 10));

/**
 * Cost of a regular expression over a string (cel-go's and Kubernetes' model: the string's traversal, 0.1 a
 * character plus one, times a quarter of the pattern's length, a guess at its number of terms).
 */
export const regexCost = (len: number, patternLen: number) => 1 + Math.ceil((len + 1) / 10) * Math.max(1, Math.ceil(patternLen / 4));
export const chargeRegex = (len: number, patternLen: number) => charge(regexCost(len, patternLen));
