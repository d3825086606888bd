// The apiextensions part of the API server: CustomResourceDefinitions are served like any kind (see crd-resource.ts);
// this starts the loop that turns each one into a served resource, and keeps APIServices in step.
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { syncLocalAPIServices } from '../registry/resources/apiservices.js';
import { CrdController } from './crd-controller.js';

export { customResourceDefinitions } from './crd-resource.js';

export function startApiExtensions(reg: Registry, clock: Clock, log: Logger): { stop(): void } {
  let pending = false;
  // Several CRDs established in a row update the APIServices once.
  const stopSync = reg.onDefsChanged(() => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      syncLocalAPIServices(reg);
    });
  });
  const controller = new CrdController(reg, clock, log);
  return {
    stop() {
      stopSync();
      controller.stop();
    },
  };
}
