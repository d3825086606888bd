// JSON values as CEL values, converted lazily and guided by the schema: integers become CEL ints (bigint),
// `type: number` stays double, objects and arrays are wrapped (children converted on access), so a rule that
// reads one field of a large object does not pay for the whole object.
import type { CelValue } from '@bufbuild/cel';
import { unescapeName } from './decl.js';
import type { SchemaView } from './schema-view.js';

const MAP = Symbol.for('@bufbuild/cel/map');
const LIST = Symbol.for('@bufbuild/cel/list');
const own = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

function childOf(s: SchemaView | undefined, key: string): SchemaView | undefined {
  if (!s) return undefined;
  return s.properties?.get(key) ?? s.additionalProperties;
}

export function toCelValue(v: unknown, s: SchemaView | undefined): CelValue {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      if (s?.type === 'number') return v;
      return Number.isInteger(v) ? BigInt(v) : v;
    case 'bigint':
      return v;
    case 'object':
      if (v === null) return null;
      if (Array.isArray(v)) return new JsonList(v, s?.items) as unknown as CelValue;
      return new JsonMap(v as Record<string, unknown>, s) as unknown as CelValue;
    default:
      return null;
  }
}

class JsonMap {
  readonly [MAP] = {};
  constructor(private readonly obj: Record<string, unknown>, private readonly schema: SchemaView | undefined) {}

  private key(k: unknown): string | undefined {
    if (typeof k !== 'string') return undefined;
    if (own(this.obj, k)) return k;
    if (k.includes('__') && this.schema?.properties) {
      const u = unescapeName(k);
      if (own(this.obj, u)) return u;
    }
    return undefined;
  }

  get size(): number {
    return Object.keys(this.obj).length;
  }
  get(k: unknown): CelValue | undefined {
    const key = this.key(k);
    if (key === undefined) return undefined;
    const v = this.obj[key];
    return v === undefined ? undefined : toCelValue(v, childOf(this.schema, key));
  }
  has(k: unknown): boolean {
    return this.key(k) !== undefined;
  }
  forEach(cb: (value: CelValue, key: string, map: unknown) => void, thisArg?: unknown): void {
    for (const k of Object.keys(this.obj)) cb.call(thisArg, toCelValue(this.obj[k], childOf(this.schema, k)), k, this);
  }
  *entries(): IterableIterator<[string, CelValue]> {
    for (const k of Object.keys(this.obj)) yield [k, toCelValue(this.obj[k], childOf(this.schema, k))];
  }
  keys(): IterableIterator<string> {
    return Object.keys(this.obj)[Symbol.iterator]();
  }
  *values(): IterableIterator<CelValue> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator]() {
    return this.entries();
  }
}

class JsonList {
  readonly [LIST] = {};
  constructor(private readonly arr: unknown[], private readonly schema: SchemaView | undefined) {}
  get size(): number {
    return this.arr.length;
  }
  get(i: number): CelValue | undefined {
    if (i < 0 || i >= this.arr.length) return undefined;
    return toCelValue(this.arr[i], this.schema);
  }
  *values(): IterableIterator<CelValue> {
    for (const v of this.arr) yield toCelValue(v, this.schema);
  }
  [Symbol.iterator]() {
    return this.values();
  }
}
