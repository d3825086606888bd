// What a pod needs from Secrets and ConfigMaps before its containers can run, checked the way upstream's kubelet
// does: the volume manager sets up `secret`, `configMap` and `projected` volumes before the sandbox (a missing
// object or item key, not optional, fails MountVolume.SetUp), and the runtime resolves each container's `envFrom`
// and `valueFrom` references just before creating it (a failure is CreateContainerConfigError). The texts are
// upstream's: the kubelet's object cache answers `secret "x" not found` / `configmap "x" not found`.
import type { Container, KeyToPath, Pod, Volume } from '../generated/k8s/core/v1.js';

export type RefKind = 'secret' | 'configmap';

/** The keys of a Secret or ConfigMap in the pod's namespace (`binary`: a ConfigMap's binaryData keys), or undefined when it does not exist. */
export type RefLookup = (kind: RefKind, name: string) => { data: ReadonlySet<string>; binary: ReadonlySet<string> } | undefined;

const notFound = (kind: RefKind, name: string) => `${kind} "${name}" not found`;

/** A volume source's error, or undefined when it can be set up. */
function sourceError(kind: RefKind, name: string, items: KeyToPath[] | undefined, optional: boolean | undefined, lookup: RefLookup): string | undefined {
  const found = lookup(kind, name);
  if (!found) return optional ? undefined : notFound(kind, name);
  if (optional || !Array.isArray(items)) return undefined;
  for (const item of items) {
    if (found.data.has(item.key) || found.binary.has(item.key)) continue;
    return kind === 'secret' ? `references non-existent secret key: ${item.key}` : `configmap references non-existent config key: ${item.key}`;
  }
  return undefined;
}

function volumeError(v: Volume, lookup: RefLookup): string | undefined {
  if (v.secret) return sourceError('secret', v.secret.secretName ?? '', v.secret.items, v.secret.optional, lookup);
  if (v.configMap) return sourceError('configmap', v.configMap.name ?? '', v.configMap.items, v.configMap.optional, lookup);
  if (!Array.isArray(v.projected?.sources)) return undefined;
  // A projected volume collects every source's error into one aggregate (one error alone prints as itself).
  const errors: string[] = [];
  // The token volume the ServiceAccount plugin adds waits for no CA: kube-root-ca.crt follows its namespace shortly.
  const tokenVolume = v.name.startsWith('kube-api-access-');
  for (const s of v.projected.sources) {
    if (tokenVolume && s.configMap?.name === 'kube-root-ca.crt') continue;
    const e = s.secret ? sourceError('secret', s.secret.name ?? '', s.secret.items, s.secret.optional, lookup)
      : s.configMap ? sourceError('configmap', s.configMap.name ?? '', s.configMap.items, s.configMap.optional, lookup) : undefined;
    if (e) errors.push(e);
  }
  return errors.length === 0 ? undefined : errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

/** The FailedMount event message of each volume that cannot be set up now, in spec order. */
export function mountFailures(pod: Pod, lookup: RefLookup): string[] {
  const out: string[] = [];
  for (const v of Array.isArray(pod.spec?.volumes) ? pod.spec.volumes : []) {
    const e = volumeError(v, lookup);
    if (e) out.push(`MountVolume.SetUp failed for volume "${v.name}" : ${e}`);
  }
  return out;
}

/** Why a container's environment cannot be built now (the CreateContainerConfigError message), or undefined. */
export function containerConfigError(pod: Pod, spec: Container, lookup: RefLookup): string | undefined {
  const ns = pod.metadata?.namespace ?? '';
  for (const from of Array.isArray(spec.envFrom) ? spec.envFrom : []) {
    if (from.configMapRef && !from.configMapRef.optional && !lookup('configmap', from.configMapRef.name ?? '')) return notFound('configmap', from.configMapRef.name ?? '');
    if (from.secretRef && !from.secretRef.optional && !lookup('secret', from.secretRef.name ?? '')) return notFound('secret', from.secretRef.name ?? '');
  }
  for (const env of Array.isArray(spec.env) ? spec.env : []) {
    const cm = env.valueFrom?.configMapKeyRef;
    const sec = env.valueFrom?.secretKeyRef;
    const ref = cm ? { kind: 'configmap' as const, label: 'ConfigMap', r: cm } : sec ? { kind: 'secret' as const, label: 'Secret', r: sec } : undefined;
    if (!ref) continue;
    const name = ref.r.name ?? '';
    const found = lookup(ref.kind, name);
    if (ref.r.optional) continue;
    if (!found) return notFound(ref.kind, name);
    if (!found.data.has(ref.r.key)) return `couldn't find key ${ref.r.key} in ${ref.label} ${ns}/${name}`;
  }
  return undefined;
}
