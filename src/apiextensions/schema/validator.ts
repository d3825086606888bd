// The OpenAPI validator of a CRD version's schema, compiled with ajv (loaded on first use, never at start-up).
// One ajv instance per compiled schema, so dropping the handle frees everything ajv cached for it.
import type { ErrorObject, ValidateFunction } from 'ajv';
import { fieldInvalid, type FieldError } from '../../machinery/errors.js';
import { toAjvSchema } from './ajv-schema.js';
import { toFieldErrors } from './ajv-errors.js';
import { formatCheckers } from './formats.js';
import type { RawSchema } from './node.js';
import { makeRegExp } from './regexp.js';

type AjvClass = (typeof import('ajv'))['Ajv'];
let AjvCtor: AjvClass | undefined;
let loading: Promise<void> | undefined;

/** Loads ajv (once); after it resolves, compileValidatorSync works. */
export function loadAjv(): Promise<void> {
  // Node's loader names ajv's exports; in the server bundle the import is the module's `exports` alone (the class).
  loading ??= import('ajv').then((m: { Ajv?: AjvClass; default: unknown }) => {
    AjvCtor = m.Ajv ?? (m.default as AjvClass);
  });
  return loading;
}

export const ajvLoaded = () => AjvCtor !== undefined;

export interface OpenApiValidator {
  /** Field errors of `data` (a custom object, or a default value) under the schema; `prefix` is data's own path. */
  validate(data: unknown, prefix?: string): FieldError[];
}

export type AjvInstance = InstanceType<AjvClass>;

/**
 * An ajv set up for CRD schemas: every error, own properties only, upstream's formats, Go-tolerant patterns. Schemas
 * are not checked against JSON Schema's meta-schema: a CRD's schema has been decoded field by field as upstream's Go
 * types decode it before it gets here, and that check compiled the meta-schema again in every instance (10 to 15 ms
 * each, two instances a CRD).
 */
export function newAjv(): AjvInstance {
  if (!AjvCtor) throw new Error('ajv is not loaded: await loadSchemaMachinery() first');
  return new AjvCtor({
    allErrors: true, verbose: true, strict: true, strictTypes: false, allowUnionTypes: true, ownProperties: true,
    logger: false, strictRequired: false, validateFormats: true, formats: formatCheckers, code: { regExp: makeRegExp },
    validateSchema: false,
  });
}

export function compileValidatorSync(schema: RawSchema, shared?: AjvInstance): OpenApiValidator {
  const translated = toAjvSchema(schema);
  let fn: ValidateFunction;
  try {
    fn = (shared ?? newAjv()).compile(translated);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { validate: (_d, prefix) => [fieldInvalid(prefix ?? '', '', `error building validator: ${why}`)] };
  }
  return {
    validate(data: unknown, prefix = ''): FieldError[] {
      if (fn(data)) return [];
      return toFieldErrors((fn.errors ?? []) as ErrorObject[], data, prefix, translated);
    },
  };
}
