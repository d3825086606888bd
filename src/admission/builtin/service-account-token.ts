// The ServiceAccount plugin's token volume: a new pod whose token is automounted (the pod's
// automountServiceAccountToken, else its ServiceAccount's, else true) gets a projected volume
// `kube-api-access-<5 random>` (a bound token, the cluster CA from the kube-root-ca.crt ConfigMap, the namespace)
// mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount in each container and init container that
// mounts nothing there itself.
import { randomInt } from 'node:crypto';
import type { Pod, Volume, VolumeMount } from '../../generated/k8s/core/v1.js';
import { isRecord } from '../../machinery/types.js';

export const tokenMountPath = '/var/run/secrets/kubernetes.io/serviceaccount';
const volumePrefix = 'kube-api-access-';
/** The characters Kubernetes' generated name suffixes use (no vowels, no look-alikes). */
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

/** Five random characters of the alphabet, drawn with one call (27^5 is far below randomInt's 2^48 limit). */
function randomSuffix(): string {
  let n = randomInt(alphabet.length ** 5);
  let out = '';
  for (let i = 0; i < 5; i++) {
    out += alphabet[n % alphabet.length];
    n = Math.floor(n / alphabet.length);
  }
  return out;
}

function tokenVolume(name: string): Volume {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

/**
 * Adds the token volume and its mounts to a new pod, as the ServiceAccount admission plugin does; `accountAutomounts`
 * reads the ServiceAccount's automountServiceAccountToken.
 */
export function mountServiceAccountToken(pod: Pod, accountAutomounts: (serviceAccount: string) => boolean | undefined): void {
  const spec = pod.spec;
  if (!spec || (spec.automountServiceAccountToken ?? accountAutomounts(spec.serviceAccountName ?? 'default')) === false) return;
  if (pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
  // Admission runs before validation: entries that are not objects are left for validation to refuse.
  const volumes: unknown[] = Array.isArray(spec.volumes) ? spec.volumes : [];
  const existing = volumes.find((v): v is Volume => isRecord(v) && typeof v.name === 'string' && v.name.startsWith(volumePrefix));
  const name = existing?.name ?? volumePrefix + randomSuffix();
  const mount: VolumeMount = { name, readOnly: true, mountPath: tokenMountPath };
  let needed = false;
  const lists: unknown[] = [spec.initContainers ?? [], spec.containers ?? []];
  for (const list of lists) {
    for (const c of Array.isArray(list) ? (list as unknown[]) : []) {
      if (!isRecord(c)) continue;
      const mounts: unknown = c.volumeMounts ?? [];
      if (!Array.isArray(mounts) || mounts.some((m) => !isRecord(m) || m.mountPath === tokenMountPath)) continue;
      c.volumeMounts = [...mounts, { ...mount }];
      needed = true;
    }
  }
  if (needed && !existing && (spec.volumes === undefined || Array.isArray(spec.volumes))) spec.volumes = [...(spec.volumes ?? []), tokenVolume(name)];
}
