// The Vertical Pod Autoscaler add-on (kubernetes/autoscaler vertical-pod-autoscaler): the autoscaling.k8s.io CRDs,
// the recommender and the updater on the clock, and the admission step that sets requests on new pods.
// Settings (cluster file `addons: { vpa: {...} }`): see settings.ts.
import { EventRecorder } from '../../client/event-recorder.js';
import type { Addon } from '../types.js';
import { vpaPodAdmission } from './admission.js';
import { vpaWebhook } from './webhook.js';
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
    const recommender = new Recommender(ctx.client, settings, new EventRecorder(ctx.client, { component: 'vpa-recommender' }), ctx.log.child({ component: 'vpa-recommender' }));
    const updater = new Updater(ctx.client, settings, new EventRecorder(ctx.client, { component: 'vpa-updater' }), ctx.log.child({ component: 'vpa-updater' }));
    const removeAdmission = ctx.client.services.addAdmission(vpaPodAdmission(ctx.client));
    const removeWebhook = ctx.client.services.addAdmission(vpaWebhook());
    const stops = [
      ctx.clock.setInterval(() => recommender.runOnce(), settings.recommenderIntervalMs),
      ctx.clock.setInterval(() => updater.runOnce(), settings.updaterIntervalMs),
    ];
    return {
      stop() {
        for (const s of stops) s();
        removeAdmission();
        removeWebhook();
      },
    };
  },
};

export const addon = vpaAddon;
export { Recommender, Updater, parseVpaSettings, vpaPodAdmission };
