// Entry point of the simulated container runtime, loaded on first exec/attach/port-forward (dynamic import).
import type { ContainerRuntime } from './types.js';
import { SimRuntime } from './runtime.js';

export { findTarget, type Target, type TargetError, type Verb } from './target.js';
export { httpResponseAnnotation } from './responder.js';

let runtime: SimRuntime | undefined;

/** The process's one runtime (it keeps emptyDir contents and Service round-robin positions between sessions). */
export async function loadRuntime(): Promise<ContainerRuntime> {
  return (runtime ??= new SimRuntime());
}
