// The ServiceAccount token the simulated runtime mounts into a pod (unsigned: it names the pod and its
// ServiceAccount), and how the server recognizes it when a pod calls the API with it (src/api/in-cluster.ts).
import type { Pod } from '../generated/k8s/core/v1.js';

const clusterDomain = 'cluster.local';
const signature = Buffer.from('bonsai-simulated-signature').toString('base64url');

export function simulatedToken(pod: Pod, nowMs: number): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const iat = Math.floor(nowMs / 1000);
  const ns = pod.metadata?.namespace ?? 'default';
  const sa = pod.spec?.serviceAccountName ?? 'default';
  return `${b64({ alg: 'RS256', kid: 'bonsai' })}.${b64({
    aud: [`https://kubernetes.default.svc.${clusterDomain}`], exp: iat + 3607, iat, iss: `https://kubernetes.default.svc.${clusterDomain}`,
    'kubernetes.io': { namespace: ns, pod: { name: pod.metadata?.name, uid: pod.metadata?.uid }, serviceaccount: { name: sa } }, nbf: iat,
    sub: `system:serviceaccount:${ns}:${sa}`,
  })}.${signature}`;
}

/** Whether `token` is the simulated token mounted into `pod` (for its ServiceAccount). */
export function isSimulatedToken(pod: Pod, token: string): boolean {
  const [, payload, sig] = token.split('.');
  if (sig !== signature || !payload) return false;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown; 'kubernetes.io'?: { pod?: { uid?: unknown } } };
    const ns = pod.metadata?.namespace ?? 'default';
    return claims.sub === `system:serviceaccount:${ns}:${pod.spec?.serviceAccountName ?? 'default'}` && claims['kubernetes.io']?.pod?.uid === pod.metadata?.uid;
  } catch {
    return false;
  }
}

