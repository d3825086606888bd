// Starts the background loops that belong to the API: garbage collection, namespaces, service accounts,
// disruption budgets and the end of graceful pod deletion.
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { GarbageCollector } from './garbage-collector.js';
import { NamespaceController } from './namespace-controller.js';
import { ServiceAccountController } from './serviceaccount-controller.js';
import { DisruptionController } from './disruption-controller.js';
import { PodTerminationController } from './pod-termination-controller.js';

export interface ControllerHandle {
  stop(): void;
}

export function startControllers(reg: Registry, clock: Clock, log: Logger): ControllerHandle {
  const l = (name: string) => log.child({ controller: name });
  const all = [
    new GarbageCollector(reg, clock, l('garbage-collector')),
    new NamespaceController(reg, clock, l('namespace')),
    new ServiceAccountController(reg, clock, l('serviceaccount')),
    new DisruptionController(reg, clock, l('disruption')),
    new PodTerminationController(reg, clock, l('pod-termination')),
  ];
  return { stop: () => all.forEach((c) => c.stop()) };
}
