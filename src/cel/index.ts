// Entry point of the CEL engine that is safe to import at start-up: nothing here loads @bufbuild/cel.
// `await loadCel()` once (e.g. when the first CRD with rules is compiled) and use what it returns.
export type { CelT } from './types.js';

export type CelEngine = typeof import('./engine.js') & typeof import('./convert.js');

let loading: Promise<CelEngine> | undefined;

/** Loads the engine (parser, libraries, checker) on first use; later calls share the same promise. */
export function loadCel(): Promise<CelEngine> {
  loading ??= Promise.all([import('./engine.js'), import('./convert.js')]).then(([e, c]) => ({ ...e, ...c }));
  return loading;
}
