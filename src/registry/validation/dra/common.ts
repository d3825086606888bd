// What the resource.k8s.io kinds share in upstream's pkg/apis/resource/validation: the size limits, lists checked
// for size first (a list over its limit is reported once and not walked, against denial of service), sets with
// unique keys, driver, pool, device and qualified names, device selectors (their CEL compiled in the DRA
// environment), opaque driver configuration, and device tolerations.
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldForbidden, type FieldError } from '../../../machinery/errors.js';
import { isDns1123Label, isDns1123Subdomain, isLabelValue, regexError } from '../../../machinery/names.js';
import { isRecord } from '../../../machinery/types.js';
import { loadCel, type CelEngine } from '../../../cel/index.js';
import { compileDeviceSelector, draLimits } from '../../../cel/dra.js';
import { arr, qualifiedNameErrors, rec, str, type Errs } from '../common.js';

/** Upstream's limits (k8s.io/api/resource/v1 constants). */
export const limits = {
  requests: 32,
  firstAvailable: 8,
  selectors: 32,
  constraints: 32,
  config: 32,
  allocationResults: 32,
  reservedFor: 256,
  tolerations: 16,
  taints: 16,
  devices: 128,
  devicesWithTaintsOrCounters: 64,
  attributesAndCapacities: draLimits.maxAttributesAndCapacities,
  counterSets: 8,
  countersPerSet: 32,
  counterConsumptionsPerDevice: 2,
  countersPerConsumption: 32,
  poolName: 253,
  driverName: 63,
  opaqueParameters: 10 * 1024,
  deviceConditions: 8,
} as const;

export const tooMany = (field: string, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany', field, message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`,
});

/** A list of at most `max` items (negative: unbounded), each checked; over the limit only the size is reported. */
export function eachItem(list: unknown, max: number, path: string, check: (item: unknown, path: string) => Errs): Errs {
  const items = arr(list);
  if (max >= 0 && items.length > max) return [tooMany(path, items.length, max)];
  const errs: Errs = [];
  items.forEach((item, i) => errs.push(...check(item, `${path}[${i}]`)));
  return errs;
}

/** As eachItem, and no two items share a key (the later ones are duplicates). */
export function eachUnique(list: unknown, max: number, path: string, key: (item: unknown) => unknown, check: (item: unknown, path: string) => Errs): Errs {
  const items = arr(list);
  if (max >= 0 && items.length > max) return [tooMany(path, items.length, max)];
  const errs = eachItem(items, -1, path, check);
  const seen = new Set<unknown>();
  items.forEach((item, i) => {
    const k = key(item);
    if (seen.has(k)) errs.push(fieldDuplicate(`${path}[${i}]`, k));
    else seen.add(k);
  });
  return errs;
}

/** The entries of a map of at most `max` keys, in insertion order; over the limit only the size is reported. */
export function eachEntry(map: unknown, max: number, path: string, check: (key: string, value: unknown) => Errs): Errs {
  const m = rec(map);
  const keys = Object.keys(m);
  if (max >= 0 && keys.length > max) return [tooMany(path, keys.length, max)];
  return keys.flatMap((k) => check(k, m[k]));
}

const invalidEach = (path: string, value: string, messages: string[]): Errs => messages.map((m) => fieldInvalid(path, value, m));

export const dnsLabelErrors = (v: unknown, path: string): Errs => invalidEach(path, str(v) ?? '', isDns1123Label(str(v) ?? ''));

/** A name that must be set and be a DNS label (request, device and counter names). */
export function requiredLabel(v: unknown, path: string): Errs {
  const s = str(v) ?? '';
  return s === '' ? [fieldRequired(path)] : dnsLabelErrors(s, path);
}

/** Driver names follow CSI driver names: set, at most 63 characters, a DNS subdomain once lower-cased. */
export function driverNameErrors(v: unknown, path: string): Errs {
  const s = str(v) ?? '';
  const errs: Errs = [];
  if (s === '') errs.push(fieldRequired(path));
  if (s.length > limits.driverName) errs.push(fieldTooLong(path, s, limits.driverName));
  errs.push(...invalidEach(path, s, isDns1123Subdomain(s.toLowerCase())));
  return errs;
}

/** Pool names: at most 253 characters, DNS subdomains separated by slashes. */
export function poolNameErrors(v: unknown, path: string): Errs {
  const s = str(v) ?? '';
  if (s === '') return [fieldRequired(path)];
  const errs: Errs = [];
  if (s.length > limits.poolName) errs.push(fieldTooLong(path, s, limits.poolName));
  for (const part of s.split('/')) errs.push(...invalidEach(path, part, isDns1123Subdomain(part)));
  return errs;
}

const cIdentifierRe = /^[A-Za-z_][A-Za-z0-9_]*$/;
const cIdentifierError = regexError("a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
  '[A-Za-z_][A-Za-z0-9_]*', 'my_name', 'MY_NAME', 'MyName');

function cIdentifierErrors(id: string, path: string): Errs {
  const errs: Errs = [];
  if (id.length > draLimits.maxIdLength) errs.push(fieldTooLong(path, id, draLimits.maxIdLength));
  if (!cIdentifierRe.test(id)) errs.push(fieldInvalid(path, id, cIdentifierError));
  return errs;
}

/** An attribute or capacity name: a C identifier, optionally after a driver-name domain and a slash. */
export function qualifiedAttributeNameErrors(name: string, path: string): Errs {
  const parts = name.split('/');
  if (parts.length === 1) return cIdentifierErrors(name, path);
  if (parts.length > 2) return [fieldInvalid(path, name, 'must not contain more than one slash')];
  const errs: Errs = [];
  if (parts[0] === '') errs.push(fieldInvalid(path, '', 'the domain must not be empty'));
  else errs.push(...driverNameErrors(parts[0], path));
  if (parts[1] === '') errs.push(fieldInvalid(path, '', 'the name must not be empty'));
  else errs.push(...cIdentifierErrors(parts[1], path));
  return errs;
}

/** A constraint's attribute: a qualified name that has its domain. */
export function fullyQualifiedNameErrors(v: unknown, path: string): Errs {
  const name = str(v) ?? '';
  const errs = qualifiedAttributeNameErrors(name, path);
  if (!name.includes('/')) errs.push(fieldInvalid(path, name, 'a fully qualified name must be a domain and a name separated by a slash'));
  return errs;
}

// ---- selectors ----

let cel: CelEngine | undefined;

/** Loads the CEL engine for selector validation (a def's `load`); until then selectors are not compiled. */
export function loadSelectorCel(): Promise<unknown> {
  return loadCel().then((e) => { cel = e; });
}

function celExpressionErrors(expression: string, path: string): Errs {
  if (expression.length > draLimits.maxLength) return [fieldTooLong(path, '', draLimits.maxLength)];
  if (!cel) return [];
  const r = compileDeviceSelector(cel, expression);
  if (r.ok) return [];
  return r.kind === 'too-complex' ? [fieldForbidden(path, r.detail)] : [fieldInvalid(path, expression, r.detail)];
}

/**
 * Device selectors: each a CEL expression. `stored` selectors were valid when stored and are not compiled again
 * (upstream skips them, so that a tightened environment does not lock objects).
 */
export function selectorErrors(list: unknown, path: string, stored = false): Errs {
  return eachItem(list, limits.selectors, path, (s, p) => {
    const sel = rec(s);
    if (!isRecord(sel.cel)) return [fieldRequired(`${p}.cel`)];
    if (stored) return [];
    const expression = sel.cel.expression;
    if (typeof expression !== 'string' || expression === '') return [fieldRequired(`${p}.cel.expression`)];
    return celExpressionErrors(expression, `${p}.cel.expression`);
  });
}

// ---- configuration ----

function rawParametersErrors(v: unknown, path: string, stored: boolean): Errs {
  if (v === undefined || v === null) return [fieldRequired(path)];
  const text = JSON.stringify(v);
  if (!stored && text.length > limits.opaqueParameters) return [fieldTooLong(path, '', limits.opaqueParameters)];
  if (!isRecord(v)) return [fieldInvalid(path, '<value omitted>', 'must be a valid JSON object')];
  return [];
}

/** A DeviceConfiguration: an opaque driver configuration is required. */
export function deviceConfigurationErrors(config: Record<string, unknown>, path: string, stored: boolean): Errs {
  if (!isRecord(config.opaque)) return [fieldRequired(`${path}.opaque`)];
  const opaque = config.opaque;
  return [...driverNameErrors(opaque.driver, `${path}.opaque.driver`), ...rawParametersErrors(opaque.parameters, `${path}.opaque.parameters`, stored)];
}

// ---- taints and tolerations ----

export const taintEffects = ['NoExecute', 'NoSchedule', 'None'];
const operators = ['Equal', 'Exists'];

function labelValueErrors(v: string, path: string): Errs {
  return invalidEach(path, v, isLabelValue(v));
}

export function tolerationErrors(list: unknown, path: string): Errs {
  return eachItem(list, limits.tolerations, path, (t, p) => {
    const tol = rec(t);
    const errs: Errs = [];
    const key = str(tol.key) ?? '';
    if (key) errs.push(...qualifiedNameErrors(key, `${p}.key`));
    const value = str(tol.value) ?? '';
    switch (tol.operator) {
      case 'Exists': if (value) errs.push(fieldInvalid(`${p}.value`, value, 'must be empty for operator `Exists`')); break;
      case 'Equal': errs.push(...labelValueErrors(value, `${p}.value`)); break;
      case undefined: case null: case '': errs.push(fieldRequired(`${p}.operator`)); break;
      default: errs.push(fieldNotSupported(`${p}.operator`, tol.operator, operators));
    }
    const effect = str(tol.effect) ?? '';
    if (effect && !taintEffects.includes(effect)) errs.push(fieldNotSupported(`${p}.effect`, effect, taintEffects));
    return errs;
  });
}

export function taintErrors(list: unknown, path: string): Errs {
  return eachItem(list, limits.taints, path, (t, p) => {
    const taint = rec(t);
    const key = str(taint.key) ?? '';
    const errs: Errs = key ? qualifiedNameErrors(key, `${p}.key`) : [fieldRequired(`${p}.key`)];
    const value = str(taint.value) ?? '';
    if (value) errs.push(...labelValueErrors(value, `${p}.value`));
    const effect = str(taint.effect) ?? '';
    if (!effect) errs.push(fieldRequired(`${p}.effect`));
    else if (!taintEffects.includes(effect)) errs.push(fieldNotSupported(`${p}.effect`, effect, taintEffects));
    return errs;
  });
}
