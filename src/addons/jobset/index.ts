// The JobSet add-on (kubernetes-sigs/jobset): the jobset.x-k8s.io CRD, its controller and its validating webhook
// (an in-process admission plugin).
import type { Addon } from '../types.js';
import { Manager } from '../../controllers/runtime/index.js';
import { JobSetController, jobSetController } from './controller.js';
import { jobSetWebhook } from './webhook.js';

export const jobSetCrd = 'src/addons/jobset/crds/jobset.x-k8s.io_jobsets.yaml';

export const jobSetAddon: Addon = {
  name: 'jobset',
  crds: [jobSetCrd],
  start(ctx) {
    const removeWebhook = ctx.client.services.addAdmission(jobSetWebhook(ctx.client));
    const controller = new Manager({ client: ctx.client, clock: ctx.clock, log: ctx.log.child({ component: 'jobset' }) }).add(jobSetController).start();
    return {
      stop() {
        controller.stop();
        removeWebhook();
      },
    };
  },
};

export const addon = jobSetAddon;
export { JobSetController, jobSetController };
