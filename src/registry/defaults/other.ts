// Defaulting for the smaller API groups: autoscaling, networking, storage, scheduling, discovery, rbac,
// admissionregistration. Each function takes the object typed by the generated kind types.
import type { HPAScalingRules, HorizontalPodAutoscaler as HpaV2 } from '../../generated/k8s/autoscaling/v2.js';
import type { IngressClass, NetworkPolicy, NetworkPolicyPort } from '../../generated/k8s/networking/v1.js';
import type { CSIDriver, StorageClass } from '../../generated/k8s/storage/v1.js';
import type { PriorityClass } from '../../generated/k8s/scheduling/v1.js';
import type { EndpointSlice } from '../../generated/k8s/discovery/v1.js';
import type { ClusterRoleBinding, RoleBinding } from '../../generated/k8s/rbac/v1.js';
import type { MutatingWebhookConfiguration, ValidatingWebhookConfiguration } from '../../generated/k8s/admissionregistration/v1.js';

import { isRecord } from '../../machinery/types.js';
import { present } from './pod.js';

const unset = (v: unknown) => v === undefined || v === null;
const list = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);

function scalingRules(given: HPAScalingRules | undefined, defaults: HPAScalingRules): HPAScalingRules {
  if (!present(given)) return defaults;
  if (unset(given.selectPolicy)) given.selectPolicy = defaults.selectPolicy;
  if (unset(given.stabilizationWindowSeconds)) given.stabilizationWindowSeconds = defaults.stabilizationWindowSeconds;
  if (unset(given.policies)) given.policies = defaults.policies;
  return given;
}

export function defaultHpaV2(hpa: HpaV2): void {
  const spec = hpa.spec;
  if (!present(spec)) return;
  if (unset(spec.minReplicas)) spec.minReplicas = 1;
  if (!Array.isArray(spec.metrics) || spec.metrics.length === 0) {
    spec.metrics = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];
  }
  if (present(spec.behavior)) {
    spec.behavior.scaleUp = scalingRules(spec.behavior.scaleUp, {
      stabilizationWindowSeconds: 0, selectPolicy: 'Max',
      policies: [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }],
    });
    spec.behavior.scaleDown = scalingRules(spec.behavior.scaleDown, {
      stabilizationWindowSeconds: 300, selectPolicy: 'Max', policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
    });
  }
}

export function defaultNetworkPolicy(np: NetworkPolicy): void {
  const spec = np.spec;
  if (!present(spec)) return;
  const defaultPort = (p: NetworkPolicyPort) => { if (present(p) && !p.protocol) p.protocol = 'TCP'; };
  for (const r of list(spec.ingress)) for (const p of list(r?.ports)) defaultPort(p);
  for (const r of list(spec.egress)) for (const p of list(r?.ports)) defaultPort(p);
  if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
    spec.policyTypes = list(spec.egress).length > 0 ? ['Ingress', 'Egress'] : ['Ingress'];
  }
}

export function defaultIngressClass(ic: IngressClass): void {
  const params = ic.spec?.parameters;
  if (present(params) && !params.scope) params.scope = 'Cluster';
}

export function defaultStorageClass(sc: StorageClass): void {
  if (!sc.reclaimPolicy) sc.reclaimPolicy = 'Delete';
  if (!sc.volumeBindingMode) sc.volumeBindingMode = 'Immediate';
}

export function defaultCsiDriver(d: CSIDriver): void {
  const spec = d.spec;
  if (!present(spec)) return;
  if (unset(spec.attachRequired)) spec.attachRequired = true;
  if (unset(spec.podInfoOnMount)) spec.podInfoOnMount = false;
  if (unset(spec.storageCapacity)) spec.storageCapacity = false;
  if (unset(spec.fsGroupPolicy)) spec.fsGroupPolicy = 'ReadWriteOnceWithFSType';
  if (!Array.isArray(spec.volumeLifecycleModes) || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ['Persistent'];
  if (unset(spec.requiresRepublish)) spec.requiresRepublish = false;
}

export function defaultPriorityClass(pc: PriorityClass): void {
  if (!pc.preemptionPolicy) pc.preemptionPolicy = 'PreemptLowerPriority';
}

export function defaultEndpointSlice(es: EndpointSlice): void {
  for (const p of list(es.ports)) {
    if (!present(p)) continue;
    if (unset(p.name)) p.name = '';
    if (unset(p.protocol)) p.protocol = 'TCP';
  }
}

export function defaultRoleBinding(rb: RoleBinding | ClusterRoleBinding): void {
  if (present(rb.roleRef) && !rb.roleRef.apiGroup) rb.roleRef.apiGroup = 'rbac.authorization.k8s.io';
  for (const s of list(rb.subjects)) {
    if (!present(s) || s.apiGroup) continue;
    // A ServiceAccount subject's group is the empty string, which the wire form omits: nothing to add.
    if (s.kind === 'User' || s.kind === 'Group') s.apiGroup = 'rbac.authorization.k8s.io';
  }
}

export function defaultWebhookConfiguration(cfg: MutatingWebhookConfiguration | ValidatingWebhookConfiguration, mutating: boolean): void {
  for (const w of list(cfg.webhooks as Array<Record<string, unknown>> | undefined)) {
    if (!isRecord(w)) continue;
    if (!w.failurePolicy) w.failurePolicy = 'Fail';
    if (!w.matchPolicy) w.matchPolicy = 'Equivalent';
    if (unset(w.namespaceSelector)) w.namespaceSelector = {};
    if (unset(w.objectSelector)) w.objectSelector = {};
    if (unset(w.timeoutSeconds)) w.timeoutSeconds = 10;
    if (mutating && !w.reinvocationPolicy) w.reinvocationPolicy = 'Never';
    for (const r of list(w.rules as Array<Record<string, unknown>> | undefined)) if (present(r) && !r.scope) r.scope = '*';
    const svc = isRecord(w.clientConfig) ? w.clientConfig.service : undefined;
    if (isRecord(svc) && unset(svc.port)) svc.port = 443;
  }
}
