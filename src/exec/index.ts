// Entry point of the simulated container runtime, loaded on first exec/attach/port-forward (dynamic import).
import { defaultBudget, type BudgetLimits } from './shell/budget.js';
import { SimRuntime } from './runtime.js';

export { findTarget, type Target, type TargetError, type Verb } from './target.js';
export { httpResponseAnnotation } from './responder.js';

/**
 * A server's runtime (it keeps the server's emptyDir contents and Service round-robin positions between sessions),
 * its sessions bounded by `budget` (the defaults where not given).
 */
export function newRuntime(budget: Partial<BudgetLimits> = {}): SimRuntime {
  return new SimRuntime({ ...defaultBudget, ...budget });
}
