// The CEL environment of Dynamic Resource Allocation device selectors (upstream's k8s.io/dynamic-resource-allocation
// cel package): one variable `device` of type kubernetes.DRADevice with the driver name and the attributes and
// capacities by domain and name, each map bounded as a ResourceSlice bounds them (for the cost estimate). A
// selector must evaluate to bool (or dyn) and its estimated cost must stay under 1,000,000 units; `cel.bind` is there
// (cel-go's ext.Bindings), as in upstream's environment.
// Light to import: the engine itself arrives through `loadCel()`; `compileDeviceSelector` takes it as an argument.
import { DYN, mapOf, QUANTITY, typeName, type CelT } from './types.js';
import type { CelEngine } from './index.js';
import type { Program } from './engine.js';

/** Upstream's bounds (k8s.io/api/resource/v1): domains, identifiers, attribute values, entries a device carries. */
export const draLimits = {
  maxDomainLength: 63,
  maxIdLength: 32,
  maxAttributeValueLength: 64,
  maxDriverNameLength: 63,
  maxAttributesAndCapacities: 32,
  /** CELSelectorExpressionMaxCost: the estimated and the run-time limit of one selector. */
  maxCost: 1_000_000,
  /** CELSelectorExpressionMaxLength. */
  maxLength: 10 * 1024,
} as const;

const str = (maxLength: number): CelT => ({ k: 'string', maxLength });
const perDevice = draLimits.maxAttributesAndCapacities;

/** The type of the `device` variable. */
export const draDeviceType: CelT = {
  k: 'object', name: 'kubernetes.DRADevice',
  fields: new Map<string, CelT>([
    ['driver', str(draLimits.maxDriverNameLength)],
    ['attributes', mapOf(str(draLimits.maxDomainLength), mapOf(str(draLimits.maxIdLength), DYN, perDevice), perDevice)],
    ['capacity', mapOf(str(draLimits.maxDomainLength), mapOf(str(draLimits.maxIdLength), QUANTITY, perDevice), perDevice)],
  ]),
};

const vars = new Map<string, CelT>([['device', draDeviceType]]);

/** The outcome of compiling a selector: a program, or upstream's kind of error and its detail. */
export type SelectorCompile =
  | { ok: true; program: Program }
  | { ok: false; kind: 'invalid' | 'too-complex'; detail: string };

/** Compiles a device selector as kube-apiserver does when it validates a claim or class. */
export function compileDeviceSelector(cel: CelEngine, expression: string): SelectorCompile {
  const r = cel.compile(expression, vars, 'dra-device', { bindings: true });
  if (!r.ok) return { ok: false, kind: 'invalid', detail: r.error.startsWith('compilation failed: ') ? r.error : `compilation failed: ${r.error}` };
  const out = r.program.outputType;
  if (out.k !== 'bool' && out.k !== 'dyn') return { ok: false, kind: 'invalid', detail: `must evaluate to bool or the unknown type, not ${typeName(out)}` };
  if (r.program.estimatedCost > draLimits.maxCost) return { ok: false, kind: 'too-complex', detail: 'too complex, exceeds cost limit' };
  return { ok: true, program: r.program };
}
