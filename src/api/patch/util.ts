// Small value helpers shared by the patch engines: cloning, JSON equality and Go-style rendering for messages.
import { ApiError } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonMap = Record<string, unknown>;

export function clone<T>(v: T): T {
  return v === undefined ? v : (structuredClone(v) as T);
}

/** Structural JSON equality; object key order is irrelevant. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (isRecord(a)) {
    if (!isRecord(b)) return false;
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
  }
  return false;
}

/** Renders a value the way Go's `%v` prints decoded JSON (map[k:v], [a b], <nil>). */
export function goString(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return `[${v.map(goString).join(' ')}]`;
  if (isRecord(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${goString(v[k])}`).join(' ')}]`;
  return String(v);
}

/** Go's reflect type name for a decoded JSON value, used in upstream-like messages. */
export function goTypeName(v: unknown): string {
  if (v === null || v === undefined) return '<nil>';
  if (Array.isArray(v)) return '[]interface {}';
  if (isRecord(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return 'float64';
  return typeof v;
}

/** JSON kind name as encoding/json reports it in unmarshal errors. */
export function jsonKindName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (isRecord(v)) return 'object';
  return typeof v;
}

export const badRequest = (message: string) => new ApiError(400, 'BadRequest', message);

/** upstream's NewGenericServerResponse(422): the detail is not shown to the client. */
export const unprocessable = () =>
  new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});

/** An error upstream passes through unwrapped (rendered as a 500 with the raw text). */
export const internal = (message: string) => new ApiError(500, 'InternalError', message);
