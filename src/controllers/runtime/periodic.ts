// A periodic pass as a controller (upstream's wait.Until loops: pod GC, the VPA's recommender and updater): one key,
// first run one period after the start and requeued every period on the manager's clock. For work that is not per
// object (it needs the whole set at once, or keeps state across rounds); everything else is a `reconcile(key)`.
import { defineController, type ControllerContext, type ControllerDef } from './controller.js';

export interface PeriodicDef {
  name: string;
  identity?: string;
  /** The period (ms of clock time). */
  periodMs: number;
  /** Makes the pass (with its state) when the controller starts. */
  setup: (ctx: ControllerContext) => () => void | Promise<void>;
}

const passKey = 'pass';

export function definePeriodic(def: PeriodicDef): ControllerDef {
  return defineController({
    name: def.name,
    ...(def.identity ? { identity: def.identity } : {}),
    setup(ctx) {
      const pass = def.setup(ctx);
      ctx.queue.addAfter(passKey, def.periodMs);
      return {
        reconcile: async () => {
          try {
            await pass();
          } catch (err) {
            // A failed pass is not retried early: the next one comes at its period, as before.
            ctx.log.warn({ err }, 'periodic pass failed');
          }
          return def.periodMs;
        },
      };
    },
  });
}
