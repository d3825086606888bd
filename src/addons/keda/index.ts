// The KEDA add-on (kedacore/keda, keda.sh/v1alpha1): the ScaledObject, ScaledJob and TriggerAuthentication CRDs, the
// ScaledObject controller (HPA keda-hpa-<name>, scale to and from zero, pause, fallback), its metrics adapter as an
// external.metrics.k8s.io source, and the ScaledJob controller. Scalers: cron, kubernetes-workload, cpu, memory and
// metrics-api; any other trigger type is `no scaler found for type: <type>` in the Ready condition.
import type { Addon } from '../types.js';
import { Manager } from '../../controllers/runtime/index.js';
import { ScaledJobController, scaledJobController } from './scaled-job-controller.js';
import { ScaledObjectController, scaledObjectController } from './scaled-object-controller.js';
import { scaledObjectWebhook } from './webhook.js';
import { scaledJobWebhook, triggerAuthenticationWebhook } from './webhook-jobs-auth.js';

export const kedaCrds = [
  'src/addons/keda/crds/keda.sh_scaledobjects.yaml',
  'src/addons/keda/crds/keda.sh_scaledjobs.yaml',
  'src/addons/keda/crds/keda.sh_triggerauthentications.yaml',
];

export const kedaAddon: Addon = {
  name: 'keda',
  crds: kedaCrds,
  rules: [
    { verbs: ['*'], apiGroups: ['', 'apps', 'batch', 'autoscaling', 'events.k8s.io', 'keda.sh'], resources: ['*'] },
    { verbs: ['get', 'list', 'watch', 'update', 'patch'], apiGroups: ['*'], resources: ['*/scale'] },
  ],
  start(ctx) {
    const log = ctx.log.child({ component: 'keda' });
    const controllers = new Manager({ client: ctx.client, clock: ctx.clock, log }).add(scaledObjectController).add(scaledJobController).start();
    const removeWebhooks = [scaledObjectWebhook(ctx.client), scaledJobWebhook(), triggerAuthenticationWebhook()].map((w) => ctx.client.services.addAdmission(w));
    return {
      stop() {
        for (const remove of removeWebhooks) remove();
        controllers.stop();
      },
    };
  },
};

export const addon = kedaAddon;
export { ScaledObjectController, ScaledJobController };
