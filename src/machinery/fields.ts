// Field selectors: `a=b,c!=d` over the fields a resource exposes (metadata.name/namespace everywhere).
import { badRequest } from './errors.js';
import type { KObject } from './types.js';
import { hasOwn } from '../util/own.js';

export interface FieldRequirement {
  field: string;
  value: string;
  negate: boolean;
}

export type FieldGetter = (obj: KObject) => string | undefined;

export function parseFieldSelector(input: string): FieldRequirement[] {
  const s = input.trim();
  if (!s) return [];
  return s.split(',').map((part) => {
    const m = part.match(/^\s*([^=!\s]+)\s*(==|=|!=)\s*(.*?)\s*$/);
    if (!m) throw badRequest(`invalid selector: '${input}'; can't understand '${part}'`);
    return { field: m[1], value: m[3], negate: m[2] === '!=' };
  });
}

export const commonFieldGetters: Record<string, FieldGetter> = {
  'metadata.name': (o) => o.metadata.name,
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

/** Checks every requirement names a supported field; throws upstream's 400 otherwise. */
export function checkFieldSelector(reqs: FieldRequirement[], getters: Record<string, FieldGetter>, onlyCommon: boolean): void {
  for (const r of reqs) {
    if (hasOwn(getters, r.field)) continue;
    if (onlyCommon) throw badRequest(`"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`);
    throw badRequest(`field label not supported: ${r.field}`);
  }
}

export function matchesFields(reqs: FieldRequirement[], getters: Record<string, FieldGetter>, obj: KObject): boolean {
  for (const r of reqs) {
    const v = (hasOwn(getters, r.field) ? getters[r.field](obj) : undefined) ?? '';
    if (r.negate ? v === r.value : v !== r.value) return false;
  }
  return true;
}

/** A getter that reads a dotted path such as `spec.nodeName` and stringifies scalars. */
export function pathGetter(path: string): FieldGetter {
  const parts = path.split('.');
  return (o) => {
    let cur: unknown = o;
    for (const p of parts) {
      if (typeof cur !== 'object' || cur === null) return undefined;
      cur = (cur as Record<string, unknown>)[p];
    }
    if (cur === undefined || cur === null) return undefined;
    return typeof cur === 'object' ? JSON.stringify(cur) : String(cur);
  };
}
