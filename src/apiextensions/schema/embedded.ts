// Checks of custom objects beside the OpenAPI validator, as the custom resource strategy runs them:
// - objects marked x-kubernetes-embedded-resource need apiVersion and kind, and their metadata is ObjectMeta
//   (upstream's objectmeta.Validate, an empty name counting as valid);
// - lists of x-kubernetes-list-type set and map hold no duplicates (upstream's listtype.ValidateListSetsAndMaps).
// Paths are field paths: `spec.template.metadata.name`, map keys as `labels[key]`, items as `[0]`.
import { fieldDuplicate, fieldInvalid, fieldRequired, type FieldError } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { validateObjectMeta } from '../../registry/validation/common.js';
import { isDns1035Label, nameIsPathSegment } from '../../machinery/names.js';
import { getOwn, hasOwn } from '../../util/own.js';
import { maxSchemaDepth, type Node } from './node.js';

const child = (path: string, k: string) => (path ? `${path}.${k}` : k);

function validateEmbedded(path: string, x: Record<string, unknown>, errs: FieldError[]): void {
  if (!hasOwn(x, 'apiVersion')) errs.push(fieldRequired(child(path, 'apiVersion')));
  if (!hasOwn(x, 'kind')) errs.push(fieldRequired(child(path, 'kind')));
  for (const k of Object.keys(x)) {
    const v = x[k];
    if (k === 'apiVersion') {
      if (typeof v !== 'string') errs.push(fieldInvalid(child(path, k), v, 'must be a string'));
      else if (!v) errs.push(fieldRequired(child(path, k)));
      else if (v.split('/').length > 2) errs.push(fieldInvalid(child(path, k), v, `unexpected GroupVersion string: ${v}`));
    } else if (k === 'kind') {
      if (typeof v !== 'string') errs.push(fieldInvalid(child(path, k), v, 'must be a string'));
      else if (!v) errs.push(fieldRequired(child(path, k)));
      else {
        const bad = isDns1035Label(v.toLowerCase());
        if (bad.length) errs.push(fieldInvalid(child(path, k), v, `may have mixed case, but should otherwise match: ${bad.join(',')}`));
      }
    } else if (k === 'metadata') {
      if (!isRecord(v)) {
        errs.push(fieldInvalid(child(path, k), v, 'must be an object'));
        continue;
      }
      const meta = { ...v, name: typeof v.name === 'string' && v.name ? v.name : 'fakename' };
      const ns = typeof v.namespace === 'string' ? v.namespace : '';
      errs.push(...validateObjectMeta({ metadata: meta }, { namespaced: ns.length > 0, nameFn: nameIsPathSegment }, child(path, 'metadata')));
    }
  }
}

function walkEmbedded(path: string, x: unknown, s: Node | undefined, errs: FieldError[], depth: number): void {
  if (!s || depth > maxSchemaDepth) return;
  if (Array.isArray(x)) {
    x.forEach((v, i) => walkEmbedded(`${path}[${i}]`, v, s.items, errs, depth + 1));
    return;
  }
  if (!isRecord(x)) return;
  if (s.embedded) validateEmbedded(path, x, errs);
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop) walkEmbedded(child(path, k), x[k], prop, errs, depth + 1);
    else if (typeof s.additional === 'object') walkEmbedded(`${path}[${k}]`, x[k], s.additional, errs, depth + 1);
  }
}

/** Stable JSON with sorted keys, as Go marshals maps (equal values give equal text). */
function canonical(v: unknown, depth = 0): string {
  if (depth > maxSchemaDepth) return 'null';
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(',')}]`;
  if (isRecord(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k], depth + 1)}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Indices of the second occurrence of each repeated key (later repeats are not reported again). */
function repeated(keys: string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((k, i) => {
    const n = seen.get(k) ?? 0;
    if (n === 1) out.push(i);
    seen.set(k, n + 1);
  });
  return out;
}

const unspecified = '\u0000unspecified';

function listMap(path: string, s: Node, list: unknown[], errs: FieldError[]): void {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isRecord(x)) {
      errs.push(fieldInvalid(`${path}[${i}]`, x, 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (list.length <= 1) return;
  const keyFields = s.listMapKeys ?? [];
  const keyOf = (x: unknown): Record<string, unknown> => {
    const key: Record<string, unknown> = {};
    if (isRecord(x)) for (const f of keyFields) if (hasOwn(x, f)) key[f] = x[f];
    return key;
  };
  const keys = list.map(keyOf);
  const texts = keyFields.length === 1
    ? keys.map((k) => (hasOwn(k, keyFields[0]) ? canonical(getOwn(k, keyFields[0])) : unspecified))
    : keys.map((k) => canonical(k));
  for (const i of repeated(texts)) errs.push(fieldDuplicate(`${path}[${i}]`, keys[i]));
}

function walkLists(path: string, x: unknown, s: Node | undefined, errs: FieldError[], depth: number): void {
  if (!s || depth > maxSchemaDepth) return;
  if (Array.isArray(x)) {
    if (s.listType === 'set') {
      for (const i of repeated(x.map((v) => canonical(v)))) errs.push(fieldDuplicate(`${path}[${i}]`, x[i]));
    } else if (s.listType === 'map') listMap(path, s, x, errs);
    if (s.items) x.forEach((v, i) => walkLists(`${path}[${i}]`, v, s.items, errs, depth + 1));
    return;
  }
  if (!isRecord(x)) return;
  const ap = s.additional;
  if (typeof ap === 'object') for (const k of Object.keys(x)) walkLists(`${path}[${k}]`, x[k], ap, errs, depth + 1);
  if (s.properties) {
    for (const k of Object.keys(x)) {
      const prop = s.properties.get(k);
      if (prop) walkLists(child(path, k), x[k], prop, errs, depth + 1);
    }
  }
}

/** Embedded-resource and list-type checks of a custom object (the resource root itself is not embedded). */
export function validateEmbeddedAndLists(obj: unknown, root: Node): FieldError[] {
  const errs: FieldError[] = [];
  walkEmbedded('', obj, { ...root, embedded: false }, errs, 0);
  walkLists('', obj, root, errs, 0);
  return errs;
}
