// The admission plugins kube-apiserver runs on every new pod: ServiceAccount (the pod runs as `default` unless it
// names another, with its token mounted: service-account-token.ts), Priority (the priority of its PriorityClass)
// and DefaultTolerationSeconds (5 minutes on not-ready and unreachable nodes).
import type { Pod, Toleration } from '../../generated/k8s/core/v1.js';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { mountServiceAccountToken } from './service-account-token.js';

const newPod = (a: AdmissionAttributes): Pod['spec'] | undefined =>
  a.operation === 'CREATE' && !a.subresource && a.def.group === '' && a.def.plural === 'pods' ? (a.object as Pod | undefined)?.spec : undefined;

export const serviceAccountAdmission: AdmissionPlugin = {
  name: 'ServiceAccount',
  mutate(a) {
    const spec = newPod(a);
    if (!spec) return;
    spec.serviceAccountName ||= spec.serviceAccount || 'default';
    spec.serviceAccount = spec.serviceAccountName;
    mountServiceAccountToken(a.object as Pod, (name) => (a.registry.getStored('core/serviceaccounts', a.namespace, name) as { automountServiceAccountToken?: boolean } | undefined)?.automountServiceAccountToken);
  },
};

export const priorityAdmission: AdmissionPlugin = {
  name: 'Priority',
  mutate(a) {
    const spec = newPod(a);
    if (!spec) return;
    if (spec.priority === undefined) {
      const pcName = spec.priorityClassName;
      const pc = pcName ? a.registry.getStored('scheduling.k8s.io/priorityclasses', '', pcName) : undefined;
      spec.priority = typeof pc?.value === 'number' ? pc.value : 0;
      if (pc && typeof pc.preemptionPolicy === 'string') spec.preemptionPolicy = pc.preemptionPolicy;
    }
    spec.preemptionPolicy ??= 'PreemptLowerPriority';
  },
};

const defaultTolerations: Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

export const defaultTolerationSeconds: AdmissionPlugin = {
  name: 'DefaultTolerationSeconds',
  mutate(a) {
    const spec = newPod(a);
    if (!spec) return;
    const tol = (spec.tolerations ??= []);
    for (const d of defaultTolerations) {
      if (!tol.some((t) => (t.key === d.key || (t.operator === 'Exists' && !t.key)) && (!t.effect || t.effect === d.effect))) tol.push({ ...d });
    }
  },
};
