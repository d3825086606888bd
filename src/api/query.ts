// Typed access to query parameters.
import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest } from '../machinery/errors.js';

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
  return Number(v);
}

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** An unsupported request option is a 422 on the request's options kind, as upstream validates them. */
function unsupportedOption(optionsKind: OptionsKind, field: string, message: string): ApiError {
  return new ApiError(422, 'Invalid', `${optionsKind}.meta.k8s.io "" is invalid: ${field}: ${message}`, {
    name: '', group: 'meta.k8s.io', kind: optionsKind, causes: [{ reason: 'FieldValueNotSupported', message, field }],
  });
}

/** `dryRun`: only "All". */
export function dryRun(q: Query, optionsKind: OptionsKind = 'CreateOptions'): boolean {
  const v = q.dryRun;
  const vals = Array.isArray(v) ? v : v === undefined ? [] : [v];
  if (vals.some((d) => d !== 'All')) {
    throw unsupportedOption(optionsKind, 'dryRun', `Unsupported value: []string{${vals.map((d) => JSON.stringify(d)).join(', ')}}: supported values: "All"`);
  }
  return vals.length > 0;
}

export function fieldValidation(q: Query, optionsKind: OptionsKind = 'CreateOptions'): 'Strict' | 'Warn' | 'Ignore' {
  const v = str(q, 'fieldValidation');
  if (v === undefined || v === '') return 'Warn';
  if (v === 'Strict' || v === 'Warn' || v === 'Ignore') return v;
  throw unsupportedOption(optionsKind, 'fieldValidation', `Unsupported value: "${v}": supported values: "Ignore", "Strict", "Warn"`);
}
