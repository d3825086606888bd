// Synchronous code that may have to wait now and then, written once: a generator yields a promise where it has to wait
// (an admission webhook, a store that must ask another process), and its driver runs it straight through as long as
// nothing waits (no promise, no microtask) and awaits what it yields after that. The write pipeline and the
// controllers that create pods are written this way.
/** What a pipeline step yields: a promise the driver settles before resuming. */
export type Wait = Promise<unknown>;
export type Steps<T> = Generator<Wait, T, unknown>;

/** What `write` answers, or its throw, as a Promise (for a caller that chains on a write that may answer at once). */
export function promised<T>(write: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(write());
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Drives the steps synchronously as long as nothing has to wait (the common case: no webhook), then awaits the rest. */
export function drive<T>(steps: Steps<T>): T | Promise<T> {
  const r = steps.next();
  return r.done ? r.value : resume(steps, r);
}

async function resume<T>(steps: Steps<T>, first: IteratorResult<Wait, T>): Promise<T> {
  let r = first;
  while (!r.done) {
    let settled: unknown;
    try {
      settled = await r.value;
    } catch (error) {
      r = steps.throw(error);
      continue;
    }
    r = steps.next(settled);
  }
  return r.value;
}

/** Inside steps: the value of `v`, waited for when it is a promise (`const x = yield* settled(maybeLater())`). */
export function* settled<T>(v: T | Promise<T>): Steps<T> {
  return v instanceof Promise ? ((yield v) as T) : v;
}
