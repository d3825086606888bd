// How kube-apiserver checks what a patch produced, and words what it finds: JSON and merge patches decode the patched
// JSON into the kind's struct, strategic merge patches convert the merged map with the unstructured converter (both
// answer 422 ` "" is invalid: patch: Invalid value: "...": <why>`), and server-side apply types the configuration
// with structured-merge-diff (`failed to create typed patch object (ns/name; apps/v1, Kind=Deployment): <why>`).
import { ApiError, badRequest } from '../machinery/errors.js';
import { apiVersionOf, isRecord, type KObject } from '../machinery/types.js';
import type { ResourceDef } from '../registry/resource.js';
import { checkAgainstSchema, type TypeErrorWording } from '../registry/validation/schema.js';
import { schemeName } from './body.js';
import { goJsonMarshal, goQuote, goValue } from '../util/go-format.js';
import { jsonDepth } from '../util/json-tree.js';
import { maxObjectDepth, objectTooDeep } from '../machinery/depth-limits.js';

type Mode = 'Strict' | 'Warn' | 'Ignore';

/** The apply configuration's (or body's) kind and apiVersion must be the resource's. */
export function checkKind(def: ResourceDef, version: string, obj: KObject, expectKind = def.kind): void {
  const want = apiVersionOf(def.group, version);
  if (obj.kind && obj.kind !== expectKind) {
    throw badRequest(`${obj.kind} in version "${version}" cannot be handled as a ${expectKind}: no kind "${obj.kind}" is registered for version "${want}" in scheme "${schemeName}"`);
  }
  if (obj.apiVersion && obj.apiVersion !== want) {
    throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${want})`);
  }
}

/** 422 on the `patch` field, with the value upstream shows: the patched JSON, or the strategic patch as Go prints it. */
function patchInvalid(value: string, why: string): ApiError {
  const message = `Invalid value: ${goQuote(value)}: ${why}`;
  return new ApiError(422, 'Invalid', ` "" is invalid: patch: ${message}`, { causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }] });
}

function checkPatched(def: ResourceDef, version: string, patched: KObject, mode: Mode, warnings: string[], wording: TypeErrorWording, shown: () => string): void {
  const { unknownFields, typeErrors } = def.checkFields ? def.checkFields(patched, version, true) : checkAgainstSchema({ group: def.group, version, kind: def.kind }, patched, true, wording);
  if (typeErrors.length) throw patchInvalid(shown(), typeErrors[0]);
  if (!unknownFields.length || mode === 'Ignore') return;
  // The unstructured converter sorts what it found; encoding/json reports it in document order.
  const msgs = unknownFields.map((f) => `unknown field "${f}"`);
  if (wording === 'unstructured') msgs.sort();
  if (mode === 'Strict') throw patchInvalid(shown(), `strict decoding error: ${msgs.join(', ')}`);
  warnings.push(...msgs);
}

/** Whether error messages can print `value` (recursive printers); what nests deeper cannot be stored either. */
const printable = (value: unknown) => jsonDepth(value, maxObjectDepth) <= maxObjectDepth;

/** A JSON or merge patch's result, decoded as the kind (unknown fields are dropped from it). */
export function checkPatchedJson(def: ResourceDef, version: string, patched: KObject, mode: Mode, warnings: string[]): void {
  // Shown as patched, before decoding drops anything from it: a cheap snapshot now, Go's rendering only on a failure.
  const snapshot = printable(patched) ? JSON.stringify(patched) : undefined;
  checkPatched(def, version, patched, mode, warnings, 'json', () => {
    if (snapshot === undefined) throw objectTooDeep(def.kind);
    return goJsonMarshal(JSON.parse(snapshot));
  });
}

/** A strategic merge patch's result, converted to the kind (unknown fields are dropped from it). */
export function checkPatchedStrategic(def: ResourceDef, version: string, patched: KObject, patch: unknown, mode: Mode, warnings: string[]): void {
  checkPatched(def, version, patched, mode, warnings, 'unstructured', () => {
    if (!printable(patch)) throw objectTooDeep(def.kind);
    return goValue(patch, true);
  });
}

/** A server-side apply configuration must type as the kind: wrong types and unknown fields fail, whatever fieldValidation says. */
export function checkApplyConfiguration(def: ResourceDef, version: string, applied: KObject): void {
  const { typeErrors } = def.checkFields ? def.checkFields(applied, version, false) : checkAgainstSchema({ group: def.group, version, kind: def.kind }, applied, false, 'typed');
  if (!typeErrors.length) return;
  const m: Record<string, unknown> = isRecord(applied.metadata) ? applied.metadata : {};
  const where = `${typeof m.namespace === 'string' ? m.namespace : ''}/${typeof m.name === 'string' ? m.name : ''}; ${def.group}/${version}, Kind=${def.kind}`;
  const why = typeErrors.length === 1 ? typeErrors[0] : ['errors:', ...typeErrors].join('\n  ');
  // Upstream lets this through as a 500; it is the client's configuration that is wrong.
  throw badRequest(`failed to create typed patch object (${where}): ${why}`);
}
