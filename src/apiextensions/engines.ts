// The heavy machinery custom resources need (ajv for schemas, CEL for rules), loaded on the first CRD rather than at
// start-up. Everything that validates against a CRD schema goes through these adapters.
import type { FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import { ApiError } from '../machinery/errors.js';

type SchemaModule = typeof import('./schema/index.js');
type CelModule = typeof import('./cel-rules.js');

interface Engines {
  schema: SchemaModule;
  cel: CelModule;
}

let loading: Promise<Engines> | undefined;
let loaded: Engines | undefined;

/** Loads the schema and CEL engines (once). */
export function loadEngines(): Promise<Engines> {
  loading ??= Promise.all([import('./schema/index.js'), import('./cel-rules.js')]).then(([schema, cel]) => (loaded = { schema, cel }));
  return loading;
}

/** The engines, which must have been loaded (every path that validates awaits `loadEngines` first). */
export function engines(): Engines {
  if (!loaded) throw new ApiError(503, 'ServiceUnavailable', 'the custom resource validation engines are still loading');
  return loaded;
}

/** One CRD version's schema, compiled: validation, rules, pruning and defaults. */
export interface CompiledVersion {
  validate(obj: KObject, old: KObject | undefined): FieldError[];
  prune(obj: unknown): string[];
  defaults(obj: KObject): void;
}
