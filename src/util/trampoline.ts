// Recursion on the heap. A recursive algorithm over client data is written as generator functions that, instead
// of calling themselves, `yield* recurse(fn, ...args)`; `runRecursion` keeps the chain of suspended calls in an
// array, so a document 10,000 levels deep costs no more native stack than a flat one, and the chain's length
// is the recursion depth, bounded by `maxDepth`.

/** One pending call: the generator function and its arguments. */
export interface Call {
  readonly fn: (...args: never[]) => Generator<Call, unknown, unknown>;
  readonly args: readonly unknown[];
}

/** A recursive step: yields calls, receives their results, returns its own result. */
export type Step<T> = Generator<Call, T, unknown>;

/** Calls `fn(...args)` through the trampoline and evaluates to its result. */
export function* recurse<A extends unknown[], T>(fn: (...args: A) => Step<T>, ...args: A): Step<T> {
  return (yield { fn: fn as unknown as Call['fn'], args }) as T;
}

/**
 * Runs `root` to completion. Exceptions propagate through the chain as they would through real calls (a
 * step may catch what a callee throws). A call that would nest deeper than `maxDepth` throws `tooDeep()`
 * into its caller instead.
 */
export function runRecursion<T>(root: Step<T>, maxDepth: number, tooDeep: () => Error): T {
  const chain: Step<unknown>[] = [root];
  let input: unknown;
  let error: unknown;
  let failed = false;
  for (;;) {
    const top = chain[chain.length - 1];
    let step: IteratorResult<Call, unknown>;
    try {
      step = failed ? top.throw(error) : top.next(input);
    } catch (e) {
      chain.pop();
      if (chain.length === 0) throw e;
      error = e;
      failed = true;
      continue;
    }
    failed = false;
    if (step.done) {
      chain.pop();
      if (chain.length === 0) return step.value as T;
      input = step.value;
      continue;
    }
    if (chain.length >= maxDepth) {
      error = tooDeep();
      failed = true;
      continue;
    }
    const { fn, args } = step.value;
    chain.push((fn as (...a: unknown[]) => Step<unknown>)(...args));
    input = undefined;
  }
}
