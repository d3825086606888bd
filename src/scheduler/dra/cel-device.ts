// The CEL environment of device selectors (DeviceClass and request `selectors`), as upstream's DRA compiler declares
// it: one variable `device` with `driver`, `attributes[domain][name]` (int, bool, string, or a semver for a version),
// `capacity[domain][name]` (quantities) and `allowMultipleAllocations`. An attribute without a domain belongs to the
// driver's; a domain the device does not have reads as an empty map, so `has(device.attributes["x"].y)` is false
// rather than an error. `cel.bind` names a value once. The expression must be a bool (or dyn); each evaluation may
// cost up to 1e6 units.
// Heavy (loads the engine): reached only through `loadDeviceCel()` in cel-env.ts.
import type { CelValue } from '@bufbuild/cel';
import type { Device, DeviceAttribute, DeviceCapacity } from '../../generated/k8s/resource/v1.js';
import { compile } from '../../cel/engine.js';
import { makeQuantity, parseDec } from '../../cel/lib-quantity.js';
import { toSemver } from '../../cel/lib-semver.js';
import { BOOL, DYN, QUANTITY, mapOf, typeName, type CelT } from '../../cel/types.js';
import type { CompiledSelector, SelectorResult } from './types.js';
import { selectorMaxCost, selectorMaxLength } from './types.js';

// Upstream's bounds on what a device may hold: 32 attributes and capacities, 63-character domains and driver
// names, 32-character identifiers, 64-character string values. The cost estimate multiplies by them.
const maxEntries = 32;
const str = (maxLength: number): CelT => ({ k: 'string', maxLength });
const deviceType: CelT = {
  k: 'object', name: 'kubernetes.DRADevice', fields: new Map<string, CelT>([
    ['driver', str(63)],
    ['attributes', mapOf(str(63), mapOf(str(32), DYN, maxEntries), maxEntries)],
    ['capacity', mapOf(str(63), mapOf(str(32), QUANTITY, maxEntries), maxEntries)],
    ['allowMultipleAllocations', BOOL],
  ]),
};
const vars = new Map<string, CelT>([['device', deviceType]]);
const envKey = 'dra-device-selector';

export function compileSelector(expression: string): CompiledSelector {
  if (expression.length > selectorMaxLength) {
    return { ok: false, error: `compilation failed: expression of ${expression.length} characters exceeds the limit of ${selectorMaxLength}` };
  }
  const c = compile(expression, vars, envKey, { bindings: true });
  if (!c.ok) return { ok: false, error: c.error.startsWith('compilation failed: ') ? c.error : `compilation failed: ${c.error}` };
  const p = c.program;
  const out = p.outputType;
  if (out.k !== 'bool' && out.k !== 'dyn') return { ok: false, error: `must evaluate to bool or the unknown type, not ${typeName(out)}` };
  return {
    ok: true,
    estimatedCost: p.estimatedCost,
    evaluate(device, driver, limit) {
      // A device is published by one driver, so the expression alone keys its verdicts.
      const key = expression;
      const hit = verdicts.get(device)?.get(key);
      if (hit) return hit.ok ? { ...hit, cost: 0 } : hit;
      const r = evaluateUncached(device, driver, limit);
      // A verdict depends only on the device and the expression (a device object is never changed in place: a
      // new slice version brings new objects); one cut short by a lower limit is not kept.
      if (r.ok || !r.costExceeded) {
        let m = verdicts.get(device);
        if (!m) verdicts.set(device, (m = new Map()));
        if (m.size >= maxVerdictsPerDevice) m.clear();
        m.set(key, r);
      }
      return r;
    },
  };

  function evaluateUncached(device: Device, driver: string, limit: number): SelectorResult {
    let value: CelValue;
    try {
      value = deviceValue(device, driver);
    } catch (e) {
      return { ok: false, error: e instanceof Error ? e.message : String(e), cost: 0, costExceeded: false };
    }
    const r = p.eval({ device: value }, Math.min(limit, selectorMaxCost));
    // The wall-clock guard's verdict counts as running out: it is not the expression's answer either.
    if (!r.ok) return { ok: false, error: r.error, cost: r.cost, costExceeded: r.costExceeded || r.timedOut === true };
    if (typeof r.value !== 'boolean') return { ok: false, error: `CEL result of type ${typeof r.value} could not be converted to bool`, cost: r.cost, costExceeded: false };
    return { ok: true, matches: r.value, cost: r.cost };
  }
}

/** Verdicts by device object, then expression: a scheduler asks the same of each device for every pod. */
const verdicts = new WeakMap<Device, Map<string, SelectorResult>>();
const maxVerdictsPerDevice = 64;

// The `device` value of one device, built once per device object and driver. Values convert when an expression
// reads them (a semver or a quantity is costly to build, and most selectors read one or two attributes).
const values = new WeakMap<Device, { driver: string; value: CelValue }>();

function deviceValue(device: Device, driver: string): CelValue {
  const hit = values.get(device);
  if (hit?.driver === driver) return hit.value;
  const attributes = byDomain(device.attributes, driver);
  const capacity = byDomain(device.capacity, driver);
  const value = asCel(new LazyMap(new Map<string, CelValue>([
    ['driver', driver],
    ['attributes', asCel(new LazyMap(attributes, (m) => asCel(new LazyMap(m, attributeValue)), empty))],
    ['capacity', asCel(new LazyMap(capacity, (m) => asCel(new LazyMap(m, capacityValue)), empty))],
    ['allowMultipleAllocations', device.allowMultipleAllocations ?? false],
  ]), (v) => v));
  values.set(device, { driver, value });
  return value;
}

/** Entries by domain, then identifier; a name without a domain is the driver's. */
function byDomain<T>(entries: Record<string, T> | undefined, driver: string): Map<string, Map<string, [string, T]>> {
  const out = new Map<string, Map<string, [string, T]>>();
  for (const [name, v] of Object.entries(entries ?? {})) {
    const i = name.indexOf('/');
    const [domain, id] = i < 0 ? [driver, name] : [name.slice(0, i), name.slice(i + 1)];
    let m = out.get(domain);
    if (!m) out.set(domain, (m = new Map()));
    m.set(id, [name, v]);
  }
  return out;
}

function attributeValue([name, a]: [string, DeviceAttribute]): CelValue {
  if (a.int !== undefined) return BigInt(a.int);
  if (a.bool !== undefined) return a.bool;
  if (a.string !== undefined) return a.string;
  if (a.version !== undefined) {
    try {
      return toSemver(a.version, false);
    } catch (e) {
      throw new Error(`attribute ${name}: parse semantic version: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  throw new Error(`attribute ${name}: unsupported attribute value`);
}

function capacityValue([name, c]: [string, DeviceCapacity]): CelValue {
  const d = parseDec(String(c.value));
  if (!d) throw new Error(`capacity ${name}: invalid quantity ${JSON.stringify(c.value)}`);
  return makeQuantity(d);
}

const MAP = Symbol.for('@bufbuild/cel/map');

/**
 * A CEL map over string keys whose values convert on first read; with `fallback`, a missing key reads as it
 * (upstream's attribute and capacity maps give an empty map for a domain the device does not have).
 */
class LazyMap<T> {
  readonly [MAP] = {};
  private readonly done = new Map<string, CelValue>();
  constructor(private readonly raw: Map<string, T>, private readonly convert: (v: T) => CelValue, private readonly fallback?: CelValue) {}
  get size(): number {
    return this.raw.size;
  }
  get(k: unknown): CelValue | undefined {
    if (typeof k !== 'string') return this.fallback;
    const hit = this.done.get(k);
    if (hit !== undefined) return hit;
    const v = this.raw.get(k);
    if (v === undefined) return this.fallback;
    const c = this.convert(v);
    this.done.set(k, c);
    return c;
  }
  has(k: unknown): boolean {
    return typeof k === 'string' && this.raw.has(k);
  }
  *entries(): IterableIterator<[string, CelValue]> {
    for (const k of this.raw.keys()) yield [k, this.get(k)!];
  }
  keys(): IterableIterator<string> {
    return this.raw.keys();
  }
  *values(): IterableIterator<CelValue> {
    for (const [, v] of this.entries()) yield v;
  }
  forEach(cb: (value: CelValue, key: string, map: unknown) => void): void {
    for (const [k, v] of this.entries()) cb(v, k, this);
  }
  [Symbol.iterator]() {
    return this.entries();
  }
}

/** The engine knows a map by its symbol, not its class. */
const asCel = <T>(m: LazyMap<T>): CelValue => m as unknown as CelValue;
const empty = asCel(new LazyMap(new Map<string, null>(), () => null));
