// The JobSet add-on (kubernetes-sigs/jobset): the jobset.x-k8s.io CRD and its controller.
import type { Addon } from '../types.js';
import { JobSetController } from './controller.js';

export const jobSetCrd = 'src/addons/jobset/crds/jobset.x-k8s.io_jobsets.yaml';

export const jobSetAddon: Addon = {
  name: 'jobset',
  crds: [jobSetCrd],
  start(ctx) {
    const controller = new JobSetController(ctx.client, ctx.clock, ctx.log.child({ component: 'jobset' }));
    return { stop: () => controller.stop() };
  },
};

export const addon = jobSetAddon;
export { JobSetController };
