// The controller manager: every controller by its kube-controller-manager name, and which of them run
// (`--controllers`). Kubelets and the scheduler start elsewhere.
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { controllerNames, selectControllers, type ControllerName } from './selection.js';
import { garbageCollectorController } from './garbage-collector.js';
import { namespaceController } from './namespace-controller.js';
import { serviceAccountController } from './serviceaccount-controller.js';
import { rootCaPublisherController } from './root-ca-publisher-controller.js';
import { disruptionController } from './disruption-controller.js';
import { endpointsController } from './endpoints-controller.js';
import { endpointSliceController } from './endpointslice-controller.js';
import { nodeLifecycleController } from './node-lifecycle-controller.js';
import { taintEvictionController } from './taint-eviction-controller.js';
import { podGcController } from './pod-gc-controller.js';
import { replicaSetController } from './replicaset/replicaset-controller.js';
import { deploymentController } from './deployment/deployment-controller.js';
import { jobControllers } from './job/job-controller.js';
import { daemonSetController } from './daemonset/daemonset-controller.js';
import { cronJobController } from './cronjob/cronjob-controller.js';
import { ttlAfterFinishedController } from './ttl-after-finished-controller.js';
import { resourceClaimControllers } from './resourceclaim/index.js';
import { hpaController } from './hpa/hpa-controller.js';
import { statefulSetController } from './statefulset/controller.js';
import { volumeController } from './volume/controller.js';
import { clusterRoleAggregationController } from './clusterrole-aggregation-controller.js';
import { controllerClientNames, controllerIdentity, controllerManagerIdentity } from '../auth/identities.js';
import { serviceAccountTokenController } from './serviceaccount-token-controller.js';
import { csrSigningController } from './csr-signing-controller.js';
import { Manager, type ControllerDef } from './runtime/index.js';

/**
 * Each controller by its kube-controller-manager name (the start order is `controllerNames`): its definition on the
 * controller runtime (several: helper queues acting as it).
 */
const definitions: Record<ControllerName, ControllerDef | ControllerDef[]> = {
  'garbage-collector': garbageCollectorController,
  namespace: namespaceController,
  serviceaccount: serviceAccountController,
  'root-ca-certificate-publisher': rootCaPublisherController,
  disruption: disruptionController,
  endpoints: endpointsController,
  endpointslice: endpointSliceController,
  'node-lifecycle': nodeLifecycleController,
  'taint-eviction': taintEvictionController,
  'pod-garbage-collector': podGcController,
  replicaset: replicaSetController,
  deployment: deploymentController,
  job: jobControllers,
  daemonset: daemonSetController,
  cronjob: cronJobController,
  'ttl-after-finished': ttlAfterFinishedController,
  'horizontal-pod-autoscaler': hpaController,
  statefulset: statefulSetController,
  'persistentvolume-binder': volumeController,
  resourceclaim: resourceClaimControllers,
  'clusterrole-aggregation': clusterRoleAggregationController,
  'serviceaccount-token': serviceAccountTokenController,
  'certificatesigningrequest-signing': csrSigningController,
};

/**
 * Starts the selected controllers, each with a client acting as its upstream identity (kube-controller-manager with
 * --use-service-account-credentials: the ServiceAccount kube-system/<client name>).
 */
export function startControllers(root: Client, clock: Clock, log: Logger, which: Set<ControllerName> = selectControllers()): Manager {
  const selected = controllerNames.filter((name) => which.has(name));
  ensureControllerServiceAccounts(root, selected);
  const clientFor = (name: string) => {
    const id = controllerIdentity(name);
    return root.as(id.user, id.component);
  };
  const manager = new Manager({ client: root, clock, log, clientFor });
  for (const name of selected) {
    const defs = definitions[name];
    for (const def of Array.isArray(defs) ? defs : [defs]) {
      if ((def.identity ?? def.name) !== name) throw new Error(`controller ${name} is defined as ${def.name}`);
      manager.add(def);
    }
  }
  return manager.start();
}

/** kube-controller-manager creates the ServiceAccount each controller acts as, in kube-system, before starting it. */
function ensureControllerServiceAccounts(root: Client, names: ControllerName[]): void {
  const client = root.as(controllerManagerIdentity.user, controllerManagerIdentity.component);
  if (!client.resource('v1/serviceaccounts')) return;
  for (const name of new Set(names.map((n) => controllerClientNames[n]))) {
    if (!name || client.get('v1/serviceaccounts', 'kube-system', name)) continue;
    client.create('v1/serviceaccounts', 'kube-system', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } })
      .catch((err: unknown) => client.log.debug({ err, serviceAccount: name }, 'creating a controller ServiceAccount failed'));
  }
}
