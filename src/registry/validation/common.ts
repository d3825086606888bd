// Shared validation: object metadata, labels, selectors, quantities and small numeric checks.
import {
  fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, type FieldError,
} from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { isLabelValue, isQualifiedName, nameIsDnsLabel, type NameFn } from '../../machinery/names.js';
import { goQuote, isGoPrintable } from '../../machinery/go-quote.js';

export type Errs = FieldError[];
export const immutable = 'field is immutable';

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
export const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {});
export const present = (v: unknown) => v !== undefined && v !== null;

/** Deep equality of JSON values; absent, null, empty map and empty list count as equal (Go's semantic equality). */
export function deepEqual(a: unknown, b: unknown): boolean {
  // One value compared with itself (a CRD's first version with itself, on every write: up to 600 KB of schema).
  if (a === b) return true;
  const empty = (v: unknown) => v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (isRecord(v) && Object.keys(v).length === 0);
  if (empty(a) && empty(b)) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!deepEqual(a[k], b[k])) return false;
    return true;
  }
  return a === b;
}

/** A map with its keys sorted, as Go's JSON encoder renders maps. */
export function sortedMap(m: unknown): unknown {
  if (!isRecord(m)) return m;
  return Object.fromEntries(Object.keys(m).sort().map((k) => [k, m[k]]));
}

/** A LabelSelector rendered in Go struct field order. */
export function selectorValue(sel: unknown): unknown {
  if (!isRecord(sel)) return sel;
  const out: Record<string, unknown> = {};
  if (isRecord(sel.matchLabels) && Object.keys(sel.matchLabels).length) out.matchLabels = sortedMap(sel.matchLabels);
  if (Array.isArray(sel.matchExpressions) && sel.matchExpressions.length) {
    out.matchExpressions = sel.matchExpressions.map((e) => {
      const r = rec(e);
      return { key: r.key, operator: r.operator, ...(Array.isArray(r.values) && r.values.length ? { values: r.values } : {}) };
    });
  }
  return out;
}

export function validateNonNegative(v: unknown, path: string): Errs {
  return typeof v === 'number' && v < 0 ? [fieldInvalid(path, v, 'must be greater than or equal to 0')] : [];
}

export function validatePositive(v: unknown, path: string): Errs {
  return typeof v === 'number' && v <= 0 ? [fieldInvalid(path, v, 'must be greater than 0')] : [];
}

/** isQualifiedName's findings on `v` (anything but a string is checked as ""), each an invalid value at `path`. */
export function qualifiedNameErrors(v: unknown, path: string): Errs {
  const s = str(v) ?? '';
  return isQualifiedName(s).map((m) => fieldInvalid(path, s, m));
}

export function validateLabels(labels: unknown, path: string): Errs {
  const errs: Errs = [];
  if (!isRecord(labels)) return errs;
  // Every write of a labelled object passes here: no entry arrays, and messages are mapped only when there are some.
  for (const k of Object.keys(labels)) {
    const keyErrors = isQualifiedName(k);
    for (let i = 0; i < keyErrors.length; i++) errs.push(fieldInvalid(path, k, keyErrors[i]));
    const v = labels[k];
    if (typeof v !== 'string') continue;
    const valueErrors = isLabelValue(v);
    for (let i = 0; i < valueErrors.length; i++) errs.push(fieldInvalid(path, v, valueErrors[i]));
  }
  return errs;
}

export function validateAnnotations(annotations: unknown, path: string): Errs {
  const errs: Errs = [];
  if (!isRecord(annotations)) return errs;
  let size = 0;
  for (const [k, v] of Object.entries(annotations)) {
    for (const m of isQualifiedName(k.toLowerCase())) errs.push(fieldInvalid(path, k, m));
    size += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (size > 256 * 1024) errs.push(fieldTooLong(path, '', 256 * 1024));
  return errs;
}

/** upstream's FieldManagerMaxLength. */
const maxFieldManagerLength = 128;

/** ValidateFieldManager: at most 128 bytes, printable characters only (positions are byte offsets, as in Go). */
export function fieldManagerErrors(manager: string, field: string): FieldError[] {
  const errs: FieldError[] = [];
  if (Buffer.byteLength(manager) > maxFieldManagerLength) errs.push(fieldTooLong(field, manager, maxFieldManagerLength));
  let offset = 0;
  for (const ch of manager) {
    if (!isGoPrintable(ch)) {
      const code = ch.codePointAt(0) ?? 0;
      errs.push({
        type: 'FieldValueInvalid', field,
        message: `Invalid value: ${goQuote(manager)}: invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${offset})`,
      });
    }
    offset += Buffer.byteLength(ch);
  }
  return errs;
}

/** ValidateManagedFields: operation Apply or Update, fieldsType FieldsV1, a valid manager name. */
function validateManagedFields(entries: unknown, path: string): Errs {
  const errs: Errs = [];
  arr(entries).forEach((e, i) => {
    const r = rec(e);
    const p = `${path}[${i}]`;
    if (r.operation !== 'Apply' && r.operation !== 'Update') errs.push(fieldInvalid(`${p}.operation`, r.operation ?? '', 'must be `Apply` or `Update`'));
    const ft = str(r.fieldsType) ?? '';
    if (ft && ft !== 'FieldsV1') errs.push(fieldInvalid(`${p}.fieldsType`, ft, 'must be `FieldsV1`'));
    errs.push(...fieldManagerErrors(str(r.manager) ?? '', `${p}.manager`));
    if ((str(r.subresource) ?? '').length > 256) errs.push(fieldTooLong(`${p}.subresource`, r.subresource, 256));
  });
  return errs;
}

export interface MetaOptions {
  namespaced: boolean;
  nameFn: NameFn;
  /** Extra rule on the name's length, e.g. CronJob's 52. */
  maxNameLength?: number;
}

/** Appends `more` to `errs` (no spread call for the empty lists nearly every check returns). */
function append(errs: Errs, more: Errs): void {
  for (let i = 0; i < more.length; i++) errs.push(more[i]);
}

export function validateObjectMeta(obj: KObject, opts: MetaOptions, path = 'metadata'): Errs {
  const errs: Errs = [];
  const meta = rec(obj.metadata);
  const name = str(meta.name) ?? '';
  const generateName = str(meta.generateName) ?? '';
  if (generateName) for (const m of opts.nameFn(generateName, true)) errs.push(fieldInvalid(`${path}.generateName`, generateName, m));
  if (!name) {
    if (!generateName) errs.push(fieldRequired(`${path}.name`, 'name or generateName is required'));
  } else {
    for (const m of opts.nameFn(name, false)) errs.push(fieldInvalid(`${path}.name`, name, m));
    if (opts.maxNameLength !== undefined && name.length > opts.maxNameLength) {
      errs.push(fieldInvalid(`${path}.name`, name, `must be no more than ${opts.maxNameLength} characters`));
    }
  }
  const ns = str(meta.namespace) ?? '';
  if (opts.namespaced) {
    if (!ns) errs.push(fieldRequired(`${path}.namespace`));
    else for (const m of nameIsDnsLabel(ns, false)) errs.push(fieldInvalid(`${path}.namespace`, ns, m));
  } else if (ns) {
    errs.push(fieldForbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  append(errs, validateNonNegative(meta.generation, `${path}.generation`));
  append(errs, validateLabels(meta.labels, `${path}.labels`));
  append(errs, validateAnnotations(meta.annotations, `${path}.annotations`));
  append(errs, validateOwnerReferences(meta.ownerReferences, `${path}.ownerReferences`));
  append(errs, validateManagedFields(meta.managedFields, `${path}.managedFields`));
  for (const f of arr(meta.finalizers)) {
    if (typeof f === 'string') append(errs, qualifiedNameErrors(f, `${path}.finalizers`));
  }
  return errs;
}

function validateOwnerReferences(refs: unknown, path: string): Errs {
  const errs: Errs = [];
  let controller = '';
  for (const r of arr(refs)) {
    const ref = rec(r);
    const apiVersion = str(ref.apiVersion) ?? '';
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (!version) errs.push(fieldInvalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!ref.kind) errs.push(fieldInvalid(`${path}.kind`, ref.kind ?? '', 'must not be empty'));
    if (!ref.name) errs.push(fieldInvalid(`${path}.name`, ref.name ?? '', 'must not be empty'));
    if (!ref.uid) errs.push(fieldInvalid(`${path}.uid`, ref.uid ?? '', 'must not be empty'));
    if (ref.controller === true) {
      const cur = `${String(ref.kind)}/${String(ref.name)}`;
      if (controller) {
        errs.push(fieldInvalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${controller} and ${cur}`));
      } else controller = cur;
    }
  }
  return errs;
}

export function validateObjectMetaUpdate(obj: KObject, old: KObject, path = 'metadata'): Errs {
  const errs: Errs = [];
  const m = rec(obj.metadata);
  const o = rec(old.metadata);
  // The store copies uid and creationTimestamp from the old object when a client omits them, so only a
  // conflicting value is an error here.
  for (const f of ['name', 'namespace', 'uid', 'creationTimestamp']) {
    if (present(o[f]) && present(m[f]) && m[f] !== '' && !deepEqual(m[f], o[f])) errs.push(fieldInvalid(`${path}.${f}`, m[f], immutable));
  }
  if (typeof m.generation === 'number' && typeof o.generation === 'number' && m.generation < o.generation) {
    errs.push(fieldInvalid(`${path}.generation`, m.generation, 'must not be decremented'));
  }
  if (present(o.deletionTimestamp)) {
    const before = new Set(arr(o.finalizers));
    const added = arr(m.finalizers).filter((f) => !before.has(f)).map(String).sort();
    if (added.length) {
      errs.push(fieldForbidden(`${path}.finalizers`, `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`));
    }
  }
  return errs;
}

/**
 * A selector requirement: the operator and the values it takes, then the key. `allowGtLt` admits node selectors'
 * Gt and Lt (one value each); label selectors know only In, NotIn, Exists and DoesNotExist.
 */
export function requirementErrors(r: Record<string, unknown>, path: string, allowGtLt: boolean): Errs {
  const errs: Errs = [];
  const op = r.operator;
  const values = arr(r.values);
  if (op === 'In' || op === 'NotIn') {
    if (values.length === 0) errs.push(fieldRequired(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
  } else if (op === 'Exists' || op === 'DoesNotExist') {
    if (values.length > 0) errs.push(fieldForbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
  } else if (allowGtLt && (op === 'Gt' || op === 'Lt')) {
    if (values.length !== 1) errs.push(fieldRequired(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"));
  } else errs.push(fieldInvalid(`${path}.operator`, op ?? '', 'not a valid selector operator'));
  errs.push(...qualifiedNameErrors(r.key, `${path}.key`));
  return errs;
}

export function validateLabelSelector(sel: unknown, path: string): Errs {
  if (!isRecord(sel)) return [];
  const errs = arr(sel.matchExpressions).flatMap((e, i) => requirementErrors(rec(e), `${path}.matchExpressions[${i}]`, false));
  errs.push(...validateLabels(sel.matchLabels, `${path}.matchLabels`));
  return errs;
}

export function selectorIsEmpty(sel: unknown): boolean {
  return !isRecord(sel) || (Object.keys(rec(sel.matchLabels)).length === 0 && arr(sel.matchExpressions).length === 0);
}

/** Whether a metav1.LabelSelector selects the labels; an empty selector selects everything. */
export function selectorMatches(sel: unknown, labels: unknown): boolean {
  const l = rec(labels);
  if (!isRecord(sel)) return false;
  for (const [k, v] of Object.entries(rec(sel.matchLabels))) if (l[k] !== v) return false;
  for (const e of arr(sel.matchExpressions)) {
    const r = rec(e);
    const key = str(r.key) ?? '';
    const has = Object.prototype.hasOwnProperty.call(l, key);
    const vals = arr(r.values);
    if (r.operator === 'In' && !(has && vals.includes(l[key]))) return false;
    if (r.operator === 'NotIn' && has && vals.includes(l[key])) return false;
    if (r.operator === 'Exists' && !has) return false;
    if (r.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}
