// Defaulting of custom objects (upstream's structuraldefaulting.Default): absent properties with a default get a
// copy of it, and so do nulls where the schema is not nullable; arrays and maps are walked with their item schemas.
// Runs on create, update and read, after pruning (which has removed the nulls that have no default).
import { isRecord } from '../../machinery/types.js';
import { hasOwn, setOwn } from '../../util/own.js';
import { deepCopy, maxSchemaDepth, type Node } from './node.js';

const nonNullableNull = (x: unknown, s: Node | undefined): s is Node => x === null && s !== undefined && !s.nullable;

export function applyDefaults(x: unknown, s: Node | undefined, depth = 0): void {
  if (!s || depth > maxSchemaDepth) return;
  if (Array.isArray(x)) {
    const items = s.items;
    for (let i = 0; i < x.length; i++) {
      if (nonNullableNull(x[i], items) && items.hasDefault) x[i] = deepCopy(items.default);
      applyDefaults(x[i], items, depth + 1);
    }
    return;
  }
  if (!isRecord(x)) return;
  if (s.properties) {
    for (const [k, prop] of s.properties) {
      if (!prop.hasDefault) continue;
      if (!hasOwn(x, k) || nonNullableNull(x[k], prop)) setOwn(x, k, deepCopy(prop.default));
    }
  }
  for (const k of Object.keys(x)) {
    const prop = s.properties?.get(k);
    if (prop) applyDefaults(x[k], prop, depth + 1);
    else if (typeof s.additional === 'object') {
      const ap = s.additional;
      if (nonNullableNull(x[k], ap) && ap.hasDefault) setOwn(x, k, deepCopy(ap.default));
      applyDefaults(x[k], ap, depth + 1);
    }
  }
}
