// Evaluates a CEL expression in the engine tests: bindings are plain JSON, the result is returned as JSON-like
// values (ints as bigint), and an evaluation error fails the test with the expression in its message.
import { loadCel, type CelEngine } from '../../src/cel/index.js';

export const cel: CelEngine = await loadCel();

export function celValue(expr: string, bindings: Record<string, unknown> = {}): unknown {
  const b = Object.fromEntries(Object.entries(bindings).map(([k, v]) => [k, cel.toCelValue(v, undefined)]));
  const r = cel.evaluate(expr, b);
  if (!r.ok) throw new Error(`${expr}: ${r.error}`);
  return cel.fromCel(r.value);
}
