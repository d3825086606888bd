// Device selectors' CEL for the allocator, behind a small interface: `await loadDeviceCel()` once (the engine
// loads on first use, never at server start) and hand the result to `allocate`, which stays synchronous.
import type { DeviceCel } from './types.js';

export { selectorMaxCost, selectorMaxLength, type CompiledSelector, type DeviceCel, type SelectorResult } from './types.js';

let loading: Promise<DeviceCel> | undefined;

/** Loads the CEL engine with the DRA environment (once; later calls share the promise). */
export function loadDeviceCel(): Promise<DeviceCel> {
  loading ??= import('./cel-device.js').then((m) => ({ compile: m.compileSelector }));
  return loading;
}
