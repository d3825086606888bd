// The heavy machinery custom resources need (ajv for schemas, CEL for rules), loaded on the first CRD rather than at
// start-up. Everything that validates against a CRD schema goes through these adapters.
import type { FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';

/** One CRD version's schema, compiled: validation, rules, pruning and defaults. */
export interface CompiledVersion {
  validate(obj: KObject, old: KObject | undefined): FieldError[];
  prune(obj: unknown): string[];
  defaults(obj: KObject): void;
}

// TEMPORARY stub until the schema and CEL engines land.
export function loadEngines(): Promise<void> {
  return Promise.resolve();
}

export function checkCrdSchema(_schema: unknown, _path: string): FieldError[] {
  return [];
}

export async function compileVersion(_schema: Record<string, unknown>): Promise<CompiledVersion> {
  return { validate: () => [], prune: () => [], defaults: () => undefined };
}

/** A version's schema as the OpenAPI documents publish it (v3 and v2 forms). */
export function publishedSchemas(schema: Record<string, unknown> | undefined): { schema?: unknown; schemaV2?: unknown } {
  return { schema };
}
