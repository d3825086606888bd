// The JobSet add-on (kubernetes-sigs/jobset): the jobset.x-k8s.io CRD, its controller and its validating webhook
// (an in-process admission plugin).
import type { Addon } from '../types.js';
import { addAdmission } from '../../client/services.js';
import { JobSetController } from './controller.js';
import { jobSetWebhook } from './webhook.js';

export const jobSetCrd = 'src/addons/jobset/crds/jobset.x-k8s.io_jobsets.yaml';

export const jobSetAddon: Addon = {
  name: 'jobset',
  crds: [jobSetCrd],
  start(ctx) {
    const removeWebhook = addAdmission(ctx.client, jobSetWebhook(ctx.client));
    const controller = new JobSetController(ctx.client, ctx.clock, ctx.log.child({ component: 'jobset' }));
    return {
      stop() {
        controller.stop();
        removeWebhook();
      },
    };
  },
};

export const addon = jobSetAddon;
export { JobSetController };
