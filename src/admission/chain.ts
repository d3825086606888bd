// Runs admission plugins in order, as one pipeline with two drivers: the write pipeline is a generator that yields
// whenever a plugin has to wait (a webhook call); the API server's request path awaits those, in-process writers
// that cannot wait run the same steps synchronously (plugins that would wait skip themselves: `canWait` is false).
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';

/** What a pipeline step yields: a promise the driver settles before resuming. */
export type Wait = Promise<unknown>;
export type Steps<T> = Generator<Wait, T, unknown>;

const isPromise = (v: unknown): v is Promise<unknown> => typeof (v as { then?: unknown } | undefined)?.then === 'function';

/**
 * Runs `phase` of every plugin that handles the request, in order; yields each answer a plugin has to wait for.
 * Returns whether any plugin waited (its answer may have replaced the object).
 */
export function* admit(plugins: readonly AdmissionPlugin[], phase: 'mutate' | 'validate', attrs: AdmissionAttributes): Steps<boolean> {
  let waited = false;
  for (const p of phaseOf(plugins, phase)) {
    if (p.handles && !p.handles(attrs)) continue;
    const r = phase === 'mutate' ? p.mutate!(attrs) : p.validate!(attrs);
    if (isPromise(r)) {
      waited = true;
      yield r;
    }
  }
  return waited;
}

/** The plugins of a list that take part in a phase (computed once per list). */
const phases = new WeakMap<readonly AdmissionPlugin[], { mutate: AdmissionPlugin[]; validate: AdmissionPlugin[] }>();
function phaseOf(plugins: readonly AdmissionPlugin[], phase: 'mutate' | 'validate'): AdmissionPlugin[] {
  let split = phases.get(plugins);
  if (!split) phases.set(plugins, (split = { mutate: plugins.filter((p) => p.mutate), validate: plugins.filter((p) => p.validate) }));
  return split[phase];
}

/** Drives the steps without waiting (in-process writes): a step that returns a promise anyway is not waited for. */
export function runSync<T>(steps: Steps<T>): T {
  let r = steps.next();
  while (!r.done) {
    r.value.catch(() => undefined);
    r = steps.next();
  }
  return r.value;
}

/** Drives the steps, awaiting what they yield; a rejection is thrown back into the pipeline at the step. */
export function runAsync<T>(steps: Steps<T>): Promise<T> {
  try {
    return Promise.resolve(drive(steps));
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
