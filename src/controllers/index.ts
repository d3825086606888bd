// Starts the controller-manager loops: garbage collection, namespaces, service accounts, disruption budgets,
// endpoints, node lifecycle, taint eviction and pod GC. (Kubelets and the scheduler start elsewhere.)
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { GarbageCollector } from './garbage-collector.js';
import { NamespaceController } from './namespace-controller.js';
import { ServiceAccountController } from './serviceaccount-controller.js';
import { DisruptionController } from './disruption-controller.js';
import { EndpointsController } from './endpoints-controller.js';
import { EndpointSliceController } from './endpointslice-controller.js';
import { NodeLifecycleController } from './node-lifecycle-controller.js';
import { TaintEvictionController } from './taint-eviction-controller.js';
import { PodGcController } from './pod-gc-controller.js';

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
    new EndpointsController(reg, clock, l('endpoint')),
    new EndpointSliceController(reg, clock, l('endpointslice')),
    new NodeLifecycleController(reg, clock, l('node-lifecycle')),
    new TaintEvictionController(reg, clock, l('taint-eviction')),
    new PodGcController(reg, clock, l('pod-gc')),
  ];
  return { stop: () => all.forEach((c) => c.stop()) };
}
