// core/v1 defaulting for the kinds that have any.
import { hasOwn, setOwn } from '../../util/own.js';
import type {
  Endpoints, LimitRange, Namespace, PersistentVolume, PersistentVolumeClaim, Pod, PodTemplate, ReplicationController, Secret, Service,
} from '../../generated/k8s/core/v1.js';
import { defaultPodOnly, defaultPodSpec, defaultPodTemplate, defaultPvcSpec, isEmpty, present } from './pod.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
const unset = (v: unknown) => v === undefined || v === null;

function statusOf<T extends object>(obj: { status?: T }): Mutable<T> {
  const o = obj as { status?: T };
  if (!present(o.status)) o.status = {} as T;
  return o.status as Mutable<T>;
}

export function defaultPod(pod: Pod): void {
  if (!present(pod.spec)) return;
  defaultPodSpec(pod.spec);
  defaultPodOnly(pod.spec);
}

export function defaultPodTemplateKind(pt: PodTemplate): void {
  defaultPodTemplate(pt.template);
}

export function defaultReplicationController(rc: ReplicationController): void {
  const spec = present(rc.spec) ? rc.spec : (rc.spec = {});
  const labels = present(spec.template) && present(spec.template.metadata) ? spec.template.metadata.labels : undefined;
  if (present(labels)) {
    if (!present(spec.selector) || Object.keys(spec.selector).length === 0) spec.selector = { ...labels };
    const meta = (rc.metadata ??= {});
    if (isEmpty(meta.labels)) meta.labels = { ...labels };
  }
  if (unset(spec.replicas)) spec.replicas = 1;
  defaultPodTemplate(spec.template);
}

export function defaultService(svc: Service): void {
  const spec = present(svc.spec) ? svc.spec : (svc.spec = {});
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && unset(spec.sessionAffinityConfig?.clientIP?.timeoutSeconds)) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  for (const p of Array.isArray(spec.ports) ? spec.ports : []) {
    if (!present(p)) continue;
    if (!p.protocol) p.protocol = 'TCP';
    if (p.targetPort === undefined || p.targetPort === null || p.targetPort === 0 || p.targetPort === '') p.targetPort = p.port;
  }
  const external = spec.type === 'NodePort' || spec.type === 'LoadBalancer' || (Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0);
  if (external && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (unset(spec.internalTrafficPolicy) && ['NodePort', 'LoadBalancer', 'ClusterIP'].includes(spec.type)) spec.internalTrafficPolicy = 'Cluster';
  if (spec.type === 'LoadBalancer' && unset(spec.allocateLoadBalancerNodePorts)) spec.allocateLoadBalancerNodePorts = true;
  // Upstream sets the IP family fields while allocating the cluster IP; this single-stack IPv4 server always can.
  if (spec.type !== 'ExternalName') {
    if (!spec.ipFamilyPolicy) spec.ipFamilyPolicy = 'SingleStack';
    if (!Array.isArray(spec.ipFamilies) || spec.ipFamilies.length === 0) spec.ipFamilies = ['IPv4'];
  }
}

export function defaultNamespace(ns: Namespace): void {
  const name = ns.metadata?.name;
  if (name) (ns.metadata ??= {}).labels = { ...(present((ns.metadata ??= {}).labels) ? (ns.metadata ??= {}).labels : {}), 'kubernetes.io/metadata.name': name };
  const spec = present(ns.spec) ? ns.spec : (ns.spec = {});
  if (!Array.isArray(spec.finalizers) || spec.finalizers.length === 0) spec.finalizers = ['kubernetes'];
  const status = statusOf(ns);
  if (!status.phase) status.phase = 'Active';
}

export function defaultSecret(s: Secret): void {
  if (!s.type) s.type = 'Opaque';
}

export function defaultPersistentVolume(pv: PersistentVolume): void {
  const spec = present(pv.spec) ? pv.spec : (pv.spec = {});
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (!spec.volumeMode) spec.volumeMode = 'Filesystem';
  const status = statusOf(pv);
  if (!status.phase) status.phase = 'Pending';
}

export function defaultPersistentVolumeClaim(pvc: PersistentVolumeClaim): void {
  const spec = present(pvc.spec) ? pvc.spec : (pvc.spec = {});
  defaultPvcSpec(spec);
  const status = statusOf(pvc);
  if (!status.phase) status.phase = 'Pending';
}

export function defaultEndpoints(ep: Endpoints): void {
  for (const ss of Array.isArray(ep.subsets) ? ep.subsets : []) {
    for (const p of present(ss) && Array.isArray(ss.ports) ? ss.ports : []) if (present(p) && !p.protocol) p.protocol = 'TCP';
  }
}

export function defaultLimitRange(lr: LimitRange): void {
  for (const item of Array.isArray(lr.spec?.limits) ? lr.spec.limits : []) {
    if (!present(item) || item.type !== 'Container') continue;
    const def = present(item.default) ? item.default : (item.default = {});
    const req = present(item.defaultRequest) ? item.defaultRequest : (item.defaultRequest = {});
    for (const [k, v] of Object.entries(item.max ?? {})) if (!hasOwn(def, k)) setOwn(def, k, v);
    for (const [k, v] of Object.entries(def)) if (!hasOwn(req, k)) setOwn(req, k, v);
    for (const [k, v] of Object.entries(item.min ?? {})) if (!hasOwn(req, k)) setOwn(req, k, v);
  }
}
