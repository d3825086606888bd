// The default scheduler: a priority queue with backoff, filter and score plugins, preemption and binding.
// (Skeleton: filled in by the scheduler work.)
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

export interface SchedulerHandle {
  stop(): void;
}

export function startScheduler(_reg: Registry, _clock: Clock, _log: Logger): SchedulerHandle {
  return { stop: () => undefined };
}
