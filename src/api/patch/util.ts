// Small value helpers shared by the patch engines: cloning, JSON equality and Go-style rendering for messages.
import { ApiError } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { cloneJson, jsonEqual } from '../../util/json-tree.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type JsonMap = Record<string, unknown>;

/** A deep copy of decoded JSON (iterative; `__proto__`-like keys stay ordinary keys). */
export function clone<T>(v: T): T {
  return cloneJson(v);
}

/** Structural JSON equality; object key order is irrelevant. */
export function deepEqual(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b);
}

/** Text already rendered, queued among the values still to render. */
class Rendered {
  constructor(readonly text: string) {}
}

/** Renders a value the way Go's `%v` prints decoded JSON (map[k:v], [a b], <nil>), without recursion. */
export function goString(v: unknown): string {
  const out: string[] = [];
  const work: unknown[] = [v];
  while (work.length) {
    const x = work.pop();
    if (x instanceof Rendered) out.push(x.text);
    else if (x === null || x === undefined) out.push('<nil>');
    else if (Array.isArray(x)) {
      work.push(new Rendered(']'));
      for (let i = x.length - 1; i >= 0; i--) {
        work.push(x[i]);
        if (i > 0) work.push(new Rendered(' '));
      }
      work.push(new Rendered('['));
    } else if (isRecord(x)) {
      const keys = Object.keys(x).sort();
      work.push(new Rendered(']'));
      for (let i = keys.length - 1; i >= 0; i--) {
        work.push(x[keys[i]]);
        work.push(new Rendered(`${i > 0 ? ' ' : ''}${keys[i]}:`));
      }
      work.push(new Rendered('map['));
    } else out.push(String(x));
  }
  return out.join('');
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

/**
 * upstream's NewGenericServerResponse(422) as the patch handler builds it: a fixed message; the library's error
 * is not passed on (no causes, as isUnexpectedResponse is false there).
 */
export const unprocessable = () =>
  new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});

/**
 * A patch the strategic merge library refuses with an error kube-apiserver does not classify (it answers 500
 * with the raw text). Client input never gets a 5xx here: it is a 422 that keeps the library's words.
 */
export const internal = (message: string) => new ApiError(422, 'Invalid', message);
