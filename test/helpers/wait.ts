// Deadlines for waits. A condition that holds within a second on a quiet machine can take many times longer on a
// loaded one (the suite must pass with the CPU halved), and a deadline only decides how soon a test that fails
// anyway says so: every poll's deadline is at least `minWaitMs`, whatever the test asked for.

export const minWaitMs = 120_000;

/** The deadline to use for a wait the test sized at `ms`. */
export const waitDeadline = (ms: number): number => Math.max(ms, minWaitMs);

/** Resolves with `p`, or fails naming `what` when it has not settled within `waitDeadline(ms)`: a hang bound, not a speed check. */
export async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  const limit = waitDeadline(ms);
  let t: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    t = setTimeout(() => reject(new Error(`${what}: not within ${limit / 1000} s`)), limit);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(t);
  }
}
