// Runs admission plugins in order, in the write pipeline: a generator that yields whenever a plugin has to wait (a
// webhook call), which its driver awaits. The server's own writes call no webhook (`canWait` is false: plugins that
// would wait skip themselves), so nothing of admission waits for them.
import type { AdmissionAttributes, AdmissionPlugin } from './types.js';
import type { Steps } from '../util/steps.js';

export { drive, settled, type Steps, type Wait } from '../util/steps.js';

const isPromise = (v: unknown): v is Promise<unknown> => typeof (v as { then?: unknown } | undefined)?.then === 'function';

/**
 * Runs `phase` of every plugin that handles the request, in order; yields each answer a plugin has to wait for.
 * Returns whether any plugin waited (its answer may have replaced the object).
 */
export function* admit(plugins: readonly AdmissionPlugin[], phase: 'mutate' | 'validate', attrs: AdmissionAttributes): Steps<boolean> {
  const waiting = admitNow(plugins, phase, attrs);
  return waiting ? yield* waiting : false;
}

/**
 * Runs `phase` of the plugins without a generator as long as none has to wait (the common case: no webhook):
 * undefined when every plugin answered at once, else the steps that wait for the answer and run the plugins after it
 * (they return true). Pipelines write `const w = admitNow(…); if (w) yield* w;` to skip the generator altogether.
 */
export function admitNow(plugins: readonly AdmissionPlugin[], phase: 'mutate' | 'validate', attrs: AdmissionAttributes): Steps<true> | undefined {
  const list = phaseOf(plugins, phase);
  for (let i = 0; i < list.length; i++) {
    const r = runPlugin(list[i], phase, attrs);
    if (r) return waitFrom(list, i + 1, r, phase, attrs);
  }
  return undefined;
}

/** A plugin's answer when it has to wait; nothing when it did its work at once (or does not handle the request). */
function runPlugin(p: AdmissionPlugin, phase: 'mutate' | 'validate', attrs: AdmissionAttributes): Promise<unknown> | undefined {
  if (p.handles && !p.handles(attrs)) return undefined;
  const r = phase === 'mutate' ? p.mutate!(attrs) : p.validate!(attrs);
  return isPromise(r) ? r : undefined;
}

function* waitFrom(list: readonly AdmissionPlugin[], from: number, first: Promise<unknown>, phase: 'mutate' | 'validate', attrs: AdmissionAttributes): Steps<true> {
  yield first;
  for (let i = from; i < list.length; i++) {
    const r = runPlugin(list[i], phase, attrs);
    if (r) yield r;
  }
  return true;
}

/**
 * The plugins of a list that take part in a phase, computed once per list (a server's list is a new array whenever
 * it changes, so the split is derived from the list alone and kept with it, never shared between servers).
 */
const phases = new WeakMap<readonly AdmissionPlugin[], { mutate: AdmissionPlugin[]; validate: AdmissionPlugin[] }>();
function phaseOf(plugins: readonly AdmissionPlugin[], phase: 'mutate' | 'validate'): AdmissionPlugin[] {
  let split = phases.get(plugins);
  if (!split) phases.set(plugins, (split = { mutate: plugins.filter((p) => p.mutate), validate: plugins.filter((p) => p.validate) }));
  return split[phase];
}
