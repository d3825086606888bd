// The Vertical Pod Autoscaler add-on (kubernetes/autoscaler vertical-pod-autoscaler): the autoscaling.k8s.io CRDs,
// the recommender and the updater (periodic controllers on the clock), and the admission step that sets requests
// on new pods.
// Settings (cluster file `addons: { vpa: {...} }`): see settings.ts.
import { Manager } from '../../controllers/runtime/index.js';
import type { Addon } from '../types.js';
import { vpaPodAdmission } from './admission.js';
import { vpaWebhook } from './webhook.js';
import { vpaControllers } from './controllers.js';
import { Recommender } from './recommender.js';
import { parseVpaSettings } from './settings.js';
import { Updater } from './updater.js';

export const vpaCrd = 'src/addons/vpa/crds/autoscaling.k8s.io_verticalpodautoscalers.yaml';

export const vpaAddon: Addon = {
  name: 'vpa',
  crds: [vpaCrd],
  start(ctx) {
    const { settings, warnings } = parseVpaSettings(ctx.settings);
    for (const w of warnings) ctx.log.warn(w);
    const controllers = new Manager({ client: ctx.client, clock: ctx.clock, log: ctx.log });
    for (const def of vpaControllers(settings)) controllers.add(def);
    controllers.start();
    const removeAdmission = ctx.client.services.addAdmission(vpaPodAdmission(ctx.client));
    const removeWebhook = ctx.client.services.addAdmission(vpaWebhook());
    return {
      stop() {
        controllers.stop();
        removeAdmission();
        removeWebhook();
      },
    };
  },
};

export const addon = vpaAddon;
export { Recommender, Updater, parseVpaSettings, vpaPodAdmission };
