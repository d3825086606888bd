// Typed access to query parameters.
import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest, fieldForbidden, fieldRequired, invalid, type FieldError } from '../machinery/errors.js';
import { goQuote } from '../machinery/go-quote.js';
import { fieldManagerErrors } from '../registry/validation/common.js';

export type Query = Record<string, string | string[] | undefined>;

export function query(req: FastifyRequest): Query {
  return (req.query ?? {}) as Query;
}

export function str(q: Query, name: string): string | undefined {
  const v = q[name];
  return Array.isArray(v) ? v[v.length - 1] : v;
}

export function bool(q: Query, name: string): boolean {
  const v = str(q, name);
  // As Kubernetes converts query booleans: absent, "0" or "false" (any case) is false; anything else is true
  // (Python's client sends watch=True).
  return v !== undefined && v !== '0' && v.toLowerCase() !== 'false';
}

export function int(q: Query, name: string): number | undefined {
  const v = str(q, name);
  if (v === undefined || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw badRequest(`invalid value for ${name}: "${v}": must be an integer`);
  const n = Number(v);
  // Options are int64 upstream (ParseInt refuses anything beyond).
  if (Math.abs(n) >= 2 ** 63) throw badRequest(`invalid value for ${name}: "${v}": value out of range`);
  return n;
}

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** An unsupported request option is a 422 on the request's options kind, as upstream validates them. */
function unsupportedOption(optionsKind: OptionsKind, field: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `${optionsKind}.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    name: '', group: 'meta.k8s.io', kind: optionsKind, causes: [{ reason: 'FieldValueNotSupported', message, field }],
  });
}

const dryRunValues = (q: Query) => {
  const v = q.dryRun;
  return Array.isArray(v) ? v : v === undefined ? [] : [v];
};
const dryRunProblem = (vals: string[]) => `Unsupported value: []string{${vals.map((d) => goQuote(d)).join(', ')}}: supported values: "All"`;
const fieldValidationProblem = (v: string) => `Unsupported value: ${goQuote(v)}: supported values: "Ignore", "Strict", "Warn"`;
const validFieldValidation = (v: string | undefined) => v === undefined || v === '' || v === 'Strict' || v === 'Warn' || v === 'Ignore';

/** `dryRun`: only "All". */
export function dryRun(q: Query, optionsKind: OptionsKind = 'CreateOptions'): boolean {
  const vals = dryRunValues(q);
  if (vals.some((d) => d !== 'All')) throw unsupportedOption(optionsKind, 'dryRun', dryRunProblem(vals));
  return vals.length > 0;
}

export function fieldValidation(q: Query, optionsKind: OptionsKind = 'CreateOptions'): 'Strict' | 'Warn' | 'Ignore' {
  const v = str(q, 'fieldValidation');
  if (v === undefined || v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw unsupportedOption(optionsKind, 'fieldValidation', fieldValidationProblem(v));
}

/**
 * Create/Update/PatchOptions as upstream validates them before the body is read, all problems in one 422:
 * `force` only with apply patches, a fieldManager required for them, fieldManager's length and characters,
 * dryRun and fieldValidation values.
 */
export function checkWriteOptions(q: Query, optionsKind: 'CreateOptions' | 'UpdateOptions' | 'PatchOptions', patchType?: string): void {
  const errs: FieldError[] = [];
  const manager = str(q, 'fieldManager') ?? '';
  if (optionsKind === 'PatchOptions') {
    if (patchType !== 'apply') {
      if (q.force !== undefined) errs.push(fieldForbidden('force', 'may not be specified for non-apply patch'));
    } else if (!manager) errs.push(fieldRequired('fieldManager', 'is required for apply patch'));
  }
  errs.push(...fieldManagerErrors(manager, 'fieldManager'));
  const vals = dryRunValues(q);
  if (vals.some((d) => d !== 'All')) errs.push({ type: 'FieldValueNotSupported', field: 'dryRun', message: dryRunProblem(vals) });
  const fv = str(q, 'fieldValidation');
  if (!validFieldValidation(fv)) errs.push({ type: 'FieldValueNotSupported', field: 'fieldValidation', message: fieldValidationProblem(fv ?? '') });
  if (errs.length) throw invalid(optionsKind, 'meta.k8s.io', '', errs);
}
