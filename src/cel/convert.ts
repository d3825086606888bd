// Conversions at the engine's edges: JSON in (schema-aware, lazy) and CEL values out (for messages and tests).
import { isCelList, isCelMap, isCelUint, type CelValue } from '@bufbuild/cel';
import { opaqueKind, opaquePayload, opaqueText } from './opaque.js';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { DYN, type CelT } from './types.js';
import { compile, type EvalResult } from './engine.js';

export { toCelValue } from './values.js';
export { toSchemaView, type SchemaView } from './schema-view.js';
export { declType, escapeName } from './decl.js';
export { typeName } from './types.js';
export { authorizerValue, type AuthzCheck, type AuthzRequest } from './lib-authz.js';

const maxDepth = 100;

/** A CEL value as plain JS: ints as bigint, lists as arrays, maps as Maps, opaque values as their text. */
export function fromCel(v: CelValue, depth = 0): unknown {
  if (depth > maxDepth) throw new Error('value nested too deeply');
  if (isCelUint(v)) return v.value;
  if (isCelList(v)) return Array.from(v, (x) => fromCel(x, depth + 1));
  if (isCelMap(v)) {
    const m = new Map<unknown, unknown>();
    for (const [k, x] of v) m.set(k, fromCel(x as CelValue, depth + 1));
    return m;
  }
  const kind = opaqueKind(v);
  if (kind === 'optional') {
    const p = opaquePayload<{ present: boolean; value?: CelValue }>(v as ReflectMessage);
    return p?.present ? { optional: fromCel(p.value as CelValue, depth + 1) } : { optional: null };
  }
  if (kind) return opaqueText(v as ReflectMessage);
  return v;
}

/** Compiles and evaluates with every variable dynamically typed (tests, ad-hoc tools). */
export function evaluate(source: string, bindings: Record<string, CelValue> = {}): EvalResult | { ok: false; error: string; costExceeded: false; cost: 0 } {
  const vars = new Map<string, CelT>(Object.keys(bindings).map((k) => [k, DYN]));
  const c = compile(source, vars, `dyn:${Object.keys(bindings).sort().join(',')}`);
  if (!c.ok) return { ok: false, error: c.error, costExceeded: false, cost: 0 };
  return c.program.eval(bindings);
}
