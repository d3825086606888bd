// The controller runtime: `defineController` declares, `Manager` runs over shared informers and rate-limited queues.
export { defineController, generationChanged, RunningController, type ControllerDef, type ControllerContext, type Reconciler, type ReconcileResult, type Source, type WatchSource } from './controller.js';
export { definePeriodic, type PeriodicDef } from './periodic.js';
export { Manager, electManager, type ManagerOptions, type Runnable, type Stoppable } from './manager.js';
export { SharedInformers, indexes, indexNames } from './informers.js';
export { keyOf, keyFor, splitKey } from '../../machinery/object-key.js';
export { WorkQueue, type WorkQueueOptions } from '../../util/work-queue.js';
