// Checks run where a large body is decoded (the body worker, body-off-thread.ts), before the main thread builds the
// object at all. A ConfigMap or Secret with hundreds of thousands of keys costs the main thread about a microsecond a
// key in every pass (parsing, validation, the field walk), so one such body at the size limit would hold the event
// loop for a second; yet the only answer it can get is validation's 422 for data over 1 MiB. That answer is given
// here, from the same rule. The 422 then names the data errors only (upstream's also lists any metadata errors), and
// a replacement of an object that does not exist gets it too (upstream looks the object up first: 404).
import { invalid } from '../machinery/errors.js';
import { isRecord, type KObject } from '../machinery/types.js';
import { validateDataKeys } from '../registry/validation/core.js';

export interface BodyTarget { method: string; url: string }

const dataKinds: Record<string, 'ConfigMap' | 'Secret'> = { configmaps: 'ConfigMap', secrets: 'Secret' };
const objectPath = /^\/api\/v1\/namespaces\/[^/?]+\/(configmaps|secrets)(?:\/[^/?]+)?(?:\?|$)/;

/** The kind whose data rules apply to a create or update at `target`, if any. */
export function precheckedKind(target: BodyTarget): 'ConfigMap' | 'Secret' | undefined {
  if (target.method !== 'POST' && target.method !== 'PUT') return undefined;
  const m = objectPath.exec(target.url);
  return m ? dataKinds[m[1]] : undefined;
}

/** Throws validation's 422 when `value`, bound for `target`, carries more data than its kind may hold. */
export function precheck(value: unknown, target: BodyTarget): void {
  const kind = precheckedKind(target);
  if (!kind || !isRecord(value) || value.kind !== kind || value.apiVersion !== 'v1') return;
  const obj = value as KObject;
  const errs = validateDataKeys(obj, kind);
  if (!errs.some((e) => e.type === 'FieldValueTooLong')) return;
  const name = isRecord(obj.metadata) && typeof obj.metadata.name === 'string' ? obj.metadata.name : '';
  throw invalid(kind, '', name, errs);
}
