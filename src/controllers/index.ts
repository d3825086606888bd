// The controller manager: every controller by its kube-controller-manager name, and which of them run
// (`--controllers`). Kubelets and the scheduler start elsewhere.
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { controllerNames, selectControllers, type ControllerName } from './selection.js';
import { GarbageCollector } from './garbage-collector.js';
import { NamespaceController } from './namespace-controller.js';
import { ServiceAccountController } from './serviceaccount-controller.js';
import { RootCaPublisherController } from './root-ca-publisher-controller.js';
import { DisruptionController } from './disruption-controller.js';
import { EndpointsController } from './endpoints-controller.js';
import { EndpointSliceController } from './endpointslice-controller.js';
import { NodeLifecycleController } from './node-lifecycle-controller.js';
import { TaintEvictionController } from './taint-eviction-controller.js';
import { PodGcController } from './pod-gc-controller.js';
import { ReplicaSetController } from './replicaset/replicaset-controller.js';
import { DeploymentController } from './deployment/deployment-controller.js';
import { JobController } from './job/job-controller.js';
import { DaemonSetController } from './daemonset/daemonset-controller.js';
import { CronJobController } from './cronjob/cronjob-controller.js';
import { TtlAfterFinishedController } from './ttl-after-finished-controller.js';
import { HorizontalPodAutoscalerController } from './hpa/hpa-controller.js';
import { StatefulSetController } from './statefulset/controller.js';
import { VolumeController } from './volume/controller.js';
import { ClusterRoleAggregationController } from './clusterrole-aggregation-controller.js';
import { controllerClientNames, controllerIdentity, controllerManagerIdentity } from '../auth/identities.js';
import { ServiceAccountTokenController } from './serviceaccount-token-controller.js';
import { CsrSigningController } from './csr-signing-controller.js';

export interface ControllerHandle {
  stop(): void;
}

type Factory = (client: Client, clock: Clock, log: Logger) => ControllerHandle;

/** How each controller is made, by its kube-controller-manager name (the start order is `controllerNames`). */
const factories: Record<ControllerName, Factory> = {
  'garbage-collector': (r, c, l) => new GarbageCollector(r, c, l),
  namespace: (r, c, l) => new NamespaceController(r, c, l),
  serviceaccount: (r, c, l) => new ServiceAccountController(r, c, l),
  'root-ca-certificate-publisher': (r, c, l) => new RootCaPublisherController(r, c, l),
  disruption: (r, c, l) => new DisruptionController(r, c, l),
  endpoints: (r, c, l) => new EndpointsController(r, c, l),
  endpointslice: (r, c, l) => new EndpointSliceController(r, c, l),
  'node-lifecycle': (r, c, l) => new NodeLifecycleController(r, c, l),
  'taint-eviction': (r, c, l) => new TaintEvictionController(r, c, l),
  'pod-garbage-collector': (r, c, l) => new PodGcController(r, c, l),
  replicaset: (r, c, l) => new ReplicaSetController(r, c, l),
  deployment: (r, c, l) => new DeploymentController(r, c, l),
  job: (r, c, l) => new JobController(r, c, l),
  daemonset: (r, c, l) => new DaemonSetController(r, c, l),
  cronjob: (r, c, l) => new CronJobController(r, c, l),
  'ttl-after-finished': (r, c, l) => new TtlAfterFinishedController(r, c, l),
  'horizontal-pod-autoscaler': (r, c, l) => new HorizontalPodAutoscalerController(r, c, l),
  statefulset: (r, c, l) => new StatefulSetController(r, c, l),
  'persistentvolume-binder': (r, c, l) => new VolumeController(r, c, l),
  'clusterrole-aggregation': (r, c, l) => new ClusterRoleAggregationController(r, c, l),
  'serviceaccount-token': (r, c, l) => new ServiceAccountTokenController(r, c, l),
  'certificatesigningrequest-signing': (r, c, l) => new CsrSigningController(r, c, l),
};

/**
 * Starts the selected controllers, each with a client acting as its upstream identity (kube-controller-manager with
 * --use-service-account-credentials: the ServiceAccount kube-system/<client name>).
 */
export function startControllers(root: Client, clock: Clock, log: Logger, which: Set<ControllerName> = selectControllers()): ControllerHandle {
  const selected = controllerNames.filter((name) => which.has(name));
  ensureControllerServiceAccounts(root, selected);
  const running = selected.map((name) => {
    const id = controllerIdentity(name);
    return factories[name](root.as(id.user, id.component), clock, log.child({ controller: name }));
  });
  return { stop: () => running.forEach((c) => c.stop()) };
}

/** kube-controller-manager creates the ServiceAccount each controller acts as, in kube-system, before starting it. */
function ensureControllerServiceAccounts(root: Client, names: ControllerName[]): void {
  const client = root.as(controllerManagerIdentity.user, controllerManagerIdentity.component);
  if (!client.resource('v1/serviceaccounts')) return;
  for (const name of new Set(names.map((n) => controllerClientNames[n]))) {
    if (!name || client.get('v1/serviceaccounts', 'kube-system', name)) continue;
    try {
      client.create('v1/serviceaccounts', 'kube-system', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'kube-system' } });
    } catch (err) {
      client.log.debug({ err, serviceAccount: name }, 'creating a controller ServiceAccount failed');
    }
  }
}
