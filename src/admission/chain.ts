// Runs admission plugins in order, as one pipeline with two drivers: the write pipeline is a generator that yields
// whenever a plugin has to wait (a webhook call); the API server's request path awaits those, in-process writers
// that cannot wait run the same steps synchronously (plugins that would wait skip themselves: `canWait` is false).
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';
import type { Steps } from '../util/steps.js';

export { drive, runAsync, runSync, type Steps, type Wait } from '../util/steps.js';

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
