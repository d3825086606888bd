// The value of a DRA selector's `device` variable for one device of a ResourceSlice, as upstream's DeviceMatches
// builds it: attributes and capacities grouped by domain (a name without one is in the driver's domain), versions as
// semver values, capacities as quantities, and a domain the device has nothing in reading as an empty map (so that
// `device.attributes["other.example.com"].x` is a missing key, not a missing domain). Part of the engine: import it
// through `loadCel()`-loaded code only (it pulls in @bufbuild/cel).
import type { CelValue } from '@bufbuild/cel';
import { makeQuantity, parseDec } from './lib-quantity.js';
import { semverValue } from './lib-semver.js';
import type { Program, EvalResult } from './engine.js';
import { draLimits } from './dra.js';

const MAP = Symbol.for('@bufbuild/cel/map');

/** A read-only CEL map over a JS Map; a missing key reads as `fallback` when one is given. */
class CelMap {
  readonly [MAP] = {};
  constructor(private readonly m: Map<string, CelValue>, private readonly fallback?: CelValue) {}
  get size(): number {
    return this.m.size;
  }
  get(k: unknown): CelValue | undefined {
    return (typeof k === 'string' ? this.m.get(k) : undefined) ?? this.fallback;
  }
  has(k: unknown): boolean {
    return typeof k === 'string' && this.m.has(k);
  }
  forEach(cb: (value: CelValue, key: string, map: unknown) => void, thisArg?: unknown): void {
    for (const [k, v] of this.m) cb.call(thisArg, v, k, this);
  }
  entries(): IterableIterator<[string, CelValue]> {
    return this.m.entries();
  }
  keys(): IterableIterator<string> {
    return this.m.keys();
  }
  values(): IterableIterator<CelValue> {
    return this.m.values();
  }
  [Symbol.iterator]() {
    return this.m.entries();
  }
}

const asCel = (m: CelMap) => m as unknown as CelValue;
const emptyMap = asCel(new CelMap(new Map()));

/** A value that could not be made (its text says why). */
interface Bad { bad: string }
const isBad = (v: unknown): v is Bad => typeof v === 'object' && v !== null && 'bad' in v;

/** One attribute's value (exactly one of int, bool, string, version). */
function attributeValue(a: Record<string, unknown>): CelValue | Bad {
  if (typeof a.int === 'number' || typeof a.int === 'bigint') return BigInt(a.int);
  if (typeof a.bool === 'boolean') return a.bool;
  if (typeof a.string === 'string') return a.string;
  if (typeof a.version === 'string') return semverValue(a.version) ?? { bad: `parse semantic version: ${a.version}` };
  return { bad: 'unsupported attribute value' };
}

/** Entries grouped by domain: `domain/id` or, without a slash, the driver's domain. */
function byDomain(entries: Record<string, unknown>, driver: string, value: (v: unknown) => CelValue | Bad): Map<string, Map<string, CelValue>> | Bad {
  const out = new Map<string, Map<string, CelValue>>();
  for (const [name, raw] of Object.entries(entries)) {
    const slash = name.indexOf('/');
    const [domain, id] = slash < 0 ? [driver, name] : [name.slice(0, slash), name.slice(slash + 1)];
    const v = value(raw);
    if (isBad(v)) return { bad: `attribute ${name}: ${v.bad}` };
    let inner = out.get(domain);
    if (!inner) out.set(domain, (inner = new Map()));
    inner.set(id, v);
  }
  return out;
}

const outer = (m: Map<string, Map<string, CelValue>>) => asCel(new CelMap(new Map([...m].map(([d, inner]) => [d, asCel(new CelMap(inner))])), emptyMap));
const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null && !Array.isArray(v) ? v as Record<string, unknown> : {});

/** The `device` variable for a device (a ResourceSlice's v1 device) of `driver`; a string when a value is malformed. */
export function deviceValue(driver: string, device: { attributes?: unknown; capacity?: unknown }): CelValue | string {
  const attributes = byDomain(rec(device.attributes), driver, (a) => attributeValue(rec(a)));
  if (isBad(attributes)) return attributes.bad;
  const capacity = byDomain(rec(device.capacity), driver, (c) => {
    const d = parseDec(String(rec(c).value ?? ''));
    return d ? makeQuantity(d) as unknown as CelValue : { bad: 'not a quantity' };
  });
  if (isBad(capacity)) return capacity.bad;
  return asCel(new CelMap(new Map<string, CelValue>([['driver', driver], ['attributes', outer(attributes)], ['capacity', outer(capacity)]])));
}

/** Runs a compiled selector on a device: true, false, or an error (a non-bool result is one, as upstream's). */
export function deviceMatches(program: Program, device: CelValue): { matches: boolean } | { error: string; cost: EvalResult['cost'] } {
  const r = program.eval({ device }, draLimits.maxCost);
  if (!r.ok) return { error: r.error, cost: r.cost };
  if (typeof r.value !== 'boolean') return { error: 'CEL result could not be converted to bool', cost: r.cost };
  return { matches: r.value };
}
