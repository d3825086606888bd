// Run-time bound on one evaluation. Evaluation is synchronous, so one module-level meter serves every call:
// comprehension loops tick it once an iteration (the engine wraps each loop condition), library functions
// charge their work (string length / 10, as upstream's cost model), and a wall-clock deadline backs both.
// Once exhausted, every further tick fails, so loops stop at their next iteration and the caller reports
// upstream's "actual cost limit exceeded".

export const costLimitExceeded = 'operation cancelled: actual cost limit exceeded';

let remaining = Number.POSITIVE_INFINITY;
let spent = 0;
let deadline = Number.POSITIVE_INFINITY;
let exhausted = false;
let sinceClock = 0;

export function startMeter(limit: number, timeLimitMs: number): void {
  remaining = limit;
  spent = 0;
  exhausted = false;
  sinceClock = 0;
  deadline = performance.now() + timeLimitMs;
}

/** Ends a metered evaluation; returns what it cost and whether it ran out. */
export function stopMeter(): { cost: number; exhausted: boolean } {
  const r = { cost: spent, exhausted };
  remaining = Number.POSITIVE_INFINITY;
  deadline = Number.POSITIVE_INFINITY;
  exhausted = false;
  return r;
}

/** Charges `n` units; throws (which @bufbuild/cel turns into an error value) once the budget is gone. */
export function charge(n: number): void {
  spent += n;
  remaining -= n;
  if (exhausted) throw new Error(costLimitExceeded);
  if (remaining < 0) {
    exhausted = true;
    throw new Error(costLimitExceeded);
  }
  sinceClock += n;
  if (sinceClock >= 512) {
    sinceClock = 0;
    if (performance.now() > deadline) {
      exhausted = true;
      throw new Error(costLimitExceeded);
    }
  }
}

/** Cost of a string operation over `len` characters (upstream charges 0.1 a byte). */
export const chargeString = (len: number) => charge(1 + Math.ceil(len / 10));
