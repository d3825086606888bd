// The heavy machinery custom resources need (ajv for schemas, CEL for rules), loaded on the first CRD rather than at
// start-up: every path that validates against a CRD schema awaits `loadEngines` first (a def's `load`).
import type { FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import { ApiError } from '../machinery/errors.js';
import type { RawSchema } from './schema/index.js';
import { loadCelRules, type CelRulesModule } from './cel-rules-load.js';
import { afterPoll, nextTurn } from '../util/next-turn.js';

type SchemaModule = typeof import('./schema/index.js');

let cel: CelRulesModule | undefined;
let structural: SchemaModule | undefined;
let loading: Promise<void> | undefined;

/** Loads the schema machinery (ajv) and the CEL rule compiler (once). */
export function loadEngines(): Promise<void> {
  loading ??= Promise.all([import('./schema/index.js'), loadCelRules()]).then(async ([schema, rules]) => {
    await schema.loadSchemaMachinery();
    // Evaluating ajv took tens of ms: what waited for it goes on in a turn of its own.
    await afterPoll();
    structural = schema;
    cel = rules;
  });
  return loading;
}

export const enginesLoaded = (): boolean => structural !== undefined && cel !== undefined;

function schemas(): SchemaModule {
  if (!structural) throw new ApiError(503, 'ServiceUnavailable', 'the custom resource validation engines are still loading');
  return structural;
}

function rules(): CelRulesModule {
  if (!cel) throw new ApiError(503, 'ServiceUnavailable', 'the custom resource validation engines are still loading');
  return cel;
}

/** CRD validation of one version's schema: structural rules, defaults, and whether its CEL rules compile. */
export function checkCrdSchema(schema: unknown, path: string): FieldError[] {
  const early = takeChecked(schema, path);
  if (early) return early;
  const errs = schemas().checkStructuralSync(schema, path);
  if (errs.length) return errs;
  return rules().compileSchemaRules(schema, path).errors;
}

/** Answers of checkCrdSchema worked out ahead by checkCrdSchemasAhead, by schema object and path; each is taken once. */
const checkedAhead = new WeakMap<object, Map<string, FieldError[]>>();

function takeChecked(schema: unknown, path: string): FieldError[] | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const byPath = checkedAhead.get(schema);
  const errs = byPath?.get(path);
  byPath?.delete(path);
  return errs;
}

/**
 * Works out what checkCrdSchema will answer for each (schema, path), the structural check and the CEL rules of each
 * schema in turns of the event loop of their own: a large CRD's (a pod template or two) take tens of milliseconds
 * each, too long for one turn. The validation that follows takes the answers.
 */
export async function checkCrdSchemasAhead(checks: ReadonlyArray<readonly [unknown, string]>): Promise<void> {
  await loadEngines();
  for (const [schema, path] of checks) {
    if (typeof schema !== 'object' || schema === null) continue;
    await nextTurn();
    let errs = schemas().checkStructuralSync(schema, path);
    if (!errs.length) {
      await nextTurn();
      errs = rules().compileSchemaRules(schema, path).errors;
    }
    let byPath = checkedAhead.get(schema);
    if (!byPath) checkedAhead.set(schema, (byPath = new Map()));
    byPath.set(path, errs);
  }
}

/** One CRD version's schema, compiled: validation (schema and rules), pruning and defaults. */
export interface CompiledVersion {
  validate(obj: KObject, old: KObject | undefined): FieldError[];
  prune(obj: unknown): string[];
  defaults(obj: KObject): void;
}

export async function compileVersion(schema: Record<string, unknown>): Promise<CompiledVersion> {
  await loadEngines();
  return compileVersionSync(schema);
}

/** compileVersion for callers that cannot wait (in-process writers); the engines must be loaded. */
export function compileVersionSync(schema: Record<string, unknown>): CompiledVersion {
  const compiled = schemas().compileStructuralSync(schema as RawSchema);
  const compiledRules = rules().compileSchemaRules(schema).rules;
  const { validateRules } = rules();
  return {
    validate(obj, old) {
      const errs = compiled.validate(obj);
      // Upstream evaluates CEL rules only on objects that pass the schema.
      return errs.length ? errs : validateRules(compiledRules, obj, old);
    },
    prune: (obj) => compiled.prune(obj),
    defaults: (obj) => compiled.default(obj),
  };
}

/** A version's schema as the OpenAPI documents publish it (v3 and v2 forms); needs the engines loaded. */
export function publishedSchemas(schema: Record<string, unknown> | undefined, gvk: { group: string; version: string; kind: string }): { schema?: unknown; schemaV2?: unknown } {
  if (!schema) return {};
  const m = schemas();
  return { schema: m.toOpenApiV3(schema as RawSchema, gvk), schemaV2: m.toOpenApiV2(schema as RawSchema, gvk) };
}
