// `node:test` with a default timeout on every test and hook that sets none (BONSAI_TEST_TIMEOUT_MS,
// default 5 minutes: generous for a machine twice as busy as a loaded CI runner; a hung test then fails with
// "test timed out" instead of hanging the run). Everything else is the real module.
import * as real from 'node:test';

export * from 'node:test';

const timeout = Number(process.env.BONSAI_TEST_TIMEOUT_MS) || 300_000;

const isOptions = (a) => typeof a === 'object' && a !== null;

// test([name][, options][, fn]), and it alike. Suites (describe) get none: their tests and hooks each have one.
function withDefault(args) {
  const i = args.findIndex(isOptions);
  if (i >= 0) return args[i].timeout === undefined ? args.map((a, j) => (j === i ? { ...a, timeout } : a)) : args;
  const at = typeof args[0] === 'string' ? 1 : 0;
  return [...args.slice(0, at), { timeout }, ...args.slice(at)];
}

function wrapTest(fn) {
  const w = (...args) => fn(...withDefault(args));
  for (const k of ['skip', 'todo', 'only']) if (typeof fn[k] === 'function') w[k] = (...args) => fn[k](...withDefault(args));
  for (const k of Object.keys(fn)) if (!(k in w)) w[k] = fn[k];
  return w;
}

// before(fn[, options]) and the other hooks.
const wrapHook = (fn) => (hook, options) => fn(hook, isOptions(options) && options.timeout !== undefined ? options : { ...(options ?? {}), timeout });

export const test = wrapTest(real.test);
export const it = wrapTest(real.it);
export const before = wrapHook(real.before);
export const after = wrapHook(real.after);
export const beforeEach = wrapHook(real.beforeEach);
export const afterEach = wrapHook(real.afterEach);
export default test;
