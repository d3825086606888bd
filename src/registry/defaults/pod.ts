// Pod spec defaulting, shared by every kind that embeds a pod spec or a pod template.
import { hasOwn, setOwn } from '../../util/own.js';
import type {
  Container, EnvVar, HTTPGetAction, Lifecycle, PersistentVolumeClaimSpec, PodSpec, PodTemplateSpec, Probe, Volume,
} from '../../generated/k8s/core/v1.js';

/** A typed object guard that keeps the static type (unlike isRecord). */
export function present<T>(v: T | null | undefined): v is T {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True for a missing or empty map. */
export function isEmpty(m: object | null | undefined): boolean {
  return !present(m) || Object.keys(m).length === 0;
}

/** `Always` for `:latest` or an untagged, undigested image; otherwise `IfNotPresent`. */
export function defaultPullPolicy(image: string | undefined): 'Always' | 'IfNotPresent' {
  const ref = image ?? '';
  const at = ref.indexOf('@');
  const named = at >= 0 ? ref.slice(0, at) : ref;
  const lastSlash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > lastSlash ? named.slice(colon + 1) : '';
  if (tag === 'latest') return 'Always';
  if (tag === '' && at < 0) return 'Always';
  return 'IfNotPresent';
}

function defaultHttpGet(h: HTTPGetAction | undefined): void {
  if (!h) return;
  if (!h.path) h.path = '/';
  if (!h.scheme) h.scheme = 'HTTP';
}

function defaultProbe(p: Probe | undefined): void {
  if (!present(p)) return;
  if (!p.timeoutSeconds) p.timeoutSeconds = 1;
  if (!p.periodSeconds) p.periodSeconds = 10;
  if (!p.successThreshold) p.successThreshold = 1;
  if (!p.failureThreshold) p.failureThreshold = 3;
  defaultHttpGet(p.httpGet);
}

function defaultLifecycle(l: Lifecycle | undefined): void {
  if (!present(l)) return;
  defaultHttpGet(l.postStart?.httpGet);
  defaultHttpGet(l.preStop?.httpGet);
}

function defaultEnv(env: EnvVar[] | undefined): void {
  if (!Array.isArray(env)) return;
  for (const e of env) {
    const from = e?.valueFrom;
    if (!present(from)) continue;
    if (present(from.fieldRef) && !from.fieldRef.apiVersion) from.fieldRef.apiVersion = 'v1';
    if (present(from.resourceFieldRef) && from.resourceFieldRef.divisor === undefined) from.resourceFieldRef.divisor = '0';
  }
}

export function defaultContainer(c: Container): void {
  if (!present(c)) return;
  if (!c.imagePullPolicy) c.imagePullPolicy = defaultPullPolicy(c.image);
  if (!c.terminationMessagePath) c.terminationMessagePath = '/dev/termination-log';
  if (!c.terminationMessagePolicy) c.terminationMessagePolicy = 'File';
  if (c.resources === undefined || c.resources === null) c.resources = {};
  for (const p of Array.isArray(c.ports) ? c.ports : []) if (present(p) && !p.protocol) p.protocol = 'TCP';
  defaultProbe(c.livenessProbe);
  defaultProbe(c.readinessProbe);
  defaultProbe(c.startupProbe);
  defaultLifecycle(c.lifecycle);
  defaultEnv(c.env);
}

const volumeSources = [
  'awsElasticBlockStore', 'azureDisk', 'azureFile', 'cephfs', 'cinder', 'configMap', 'csi', 'downwardAPI', 'emptyDir',
  'ephemeral', 'fc', 'flexVolume', 'flocker', 'gcePersistentDisk', 'gitRepo', 'glusterfs', 'hostPath', 'image', 'iscsi',
  'nfs', 'persistentVolumeClaim', 'photonPersistentDisk', 'portworxVolume', 'projected', 'quobyte', 'rbd', 'scaleIO',
  'secret', 'storageos', 'vsphereVolume',
];

function defaultDownwardItems(items: unknown): void {
  if (!Array.isArray(items)) return;
  for (const it of items) if (present(it) && present(it.fieldRef) && !it.fieldRef.apiVersion) it.fieldRef.apiVersion = 'v1';
}

export function defaultVolume(v: Volume): void {
  if (!present(v)) return;
  const rec = v as Record<string, unknown>;
  if (!volumeSources.some((k) => rec[k] !== undefined && rec[k] !== null)) v.emptyDir = {};
  if (present(v.configMap) && v.configMap.defaultMode === undefined) v.configMap.defaultMode = 420;
  if (present(v.secret) && v.secret.defaultMode === undefined) v.secret.defaultMode = 420;
  if (present(v.downwardAPI)) {
    if (v.downwardAPI.defaultMode === undefined) v.downwardAPI.defaultMode = 420;
    defaultDownwardItems(v.downwardAPI.items);
  }
  if (present(v.projected)) {
    if (v.projected.defaultMode === undefined) v.projected.defaultMode = 420;
    for (const s of Array.isArray(v.projected.sources) ? v.projected.sources : []) {
      if (!present(s)) continue;
      if (present(s.serviceAccountToken) && s.serviceAccountToken.expirationSeconds === undefined) s.serviceAccountToken.expirationSeconds = 3600;
      if (present(s.downwardAPI)) defaultDownwardItems(s.downwardAPI.items);
    }
  }
  if (present(v.hostPath) && v.hostPath.type === undefined) v.hostPath.type = '';
  const claim = v.ephemeral?.volumeClaimTemplate?.spec;
  if (present(claim)) defaultPvcSpec(claim);
}

export function defaultPvcSpec(spec: PersistentVolumeClaimSpec): void {
  if (present(spec) && !spec.volumeMode) spec.volumeMode = 'Filesystem';
}

/** What upstream fills in every pod spec, including those inside templates. */
export function defaultPodSpec(spec: PodSpec | undefined): void {
  if (!present(spec)) return;
  if (!spec.dnsPolicy) spec.dnsPolicy = 'ClusterFirst';
  if (!spec.restartPolicy) spec.restartPolicy = 'Always';
  if (spec.securityContext === undefined || spec.securityContext === null) spec.securityContext = {};
  if (spec.terminationGracePeriodSeconds === undefined || spec.terminationGracePeriodSeconds === null) spec.terminationGracePeriodSeconds = 30;
  if (!spec.schedulerName) spec.schedulerName = 'default-scheduler';
  // The deprecated `serviceAccount` is an alias: v1 objects carry both, `serviceAccountName` winning when both are set.
  if (!spec.serviceAccountName && spec.serviceAccount) spec.serviceAccountName = spec.serviceAccount;
  if (spec.serviceAccountName) spec.serviceAccount = spec.serviceAccountName;
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) defaultContainer(c);
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : []) defaultContainer(c);
  for (const c of Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers : []) defaultContainer(c as Container);
  for (const v of Array.isArray(spec.volumes) ? spec.volumes : []) defaultVolume(v);
}

export function defaultPodTemplate(t: PodTemplateSpec | undefined): void {
  if (present(t)) defaultPodSpec(t.spec);
}

/** Pod-only defaults: enableServiceLinks, requests from limits, host ports under hostNetwork. */
export function defaultPodOnly(spec: PodSpec | undefined): void {
  if (!present(spec)) return;
  if (spec.enableServiceLinks === undefined || spec.enableServiceLinks === null) spec.enableServiceLinks = true;
  const all = [...(Array.isArray(spec.containers) ? spec.containers : []), ...(Array.isArray(spec.initContainers) ? spec.initContainers : [])];
  for (const c of all) {
    if (!present(c) || !present(c.resources) || !present(c.resources.limits)) continue;
    const requests = present(c.resources.requests) ? c.resources.requests : (c.resources.requests = {});
    for (const [k, v] of Object.entries(c.resources.limits)) if (!hasOwn(requests, k)) setOwn(requests, k, v);
  }
  if (!spec.hostNetwork) return;
  for (const c of all) {
    for (const p of present(c) && Array.isArray(c.ports) ? c.ports : []) if (present(p) && !p.hostPort) p.hostPort = p.containerPort;
  }
}
