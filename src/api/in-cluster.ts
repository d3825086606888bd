// The server's API as pods reach it at https://kubernetes.default.svc (src/exec/api-access.ts): each request is
// injected into the server in process. A pod's mounted (simulated) token is exchanged for a token of its
// ServiceAccount bound to the pod, minted as TokenRequest mints one, so the request is authenticated and authorized
// as that ServiceAccount; any other credentials pass as they are.
import type { FastifyInstance } from 'fastify';
import type { Pod } from '../generated/k8s/core/v1.js';
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import { setInClusterApi } from '../exec/api-access.js';
import { isSimulatedToken } from '../exec/pod-token.js';
import { tokenRequest } from './token.js';

async function podToken(reg: Registry, pod: Pod): Promise<string> {
  const ns = pod.metadata?.namespace ?? 'default';
  const request: KObject = { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', metadata: {}, spec: { boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata?.name, uid: pod.metadata?.uid } } };
  const res = await tokenRequest(reg, ns, pod.spec?.serviceAccountName ?? 'default', request);
  return String((res.status as { token?: unknown } | undefined)?.token ?? '');
}

export function installInClusterApi(reg: Registry, app: FastifyInstance): void {
  setInClusterApi(reg, async (call) => {
    // In the cluster the API is kubernetes.default.svc; in process the request comes from the server's own host.
    const headers: Record<string, string> = { ...Object.fromEntries(call.headers), host: 'localhost' };
    const token = /^Bearer\s+(\S+)$/i.exec(call.headers.get('authorization') ?? '')?.[1];
    if (token && isSimulatedToken(call.pod, token)) {
      try {
        headers.authorization = `Bearer ${await podToken(reg, call.pod)}`;
      } catch {
        delete headers.authorization;
      }
    }
    const res = await app.inject({ method: call.method as 'GET', url: call.path, headers, payload: call.body.length ? call.body : undefined });
    const out: [string, string][] = [];
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.push([k, Array.isArray(v) ? v.join(', ') : String(v)]);
    return { status: res.statusCode, headers: out, body: res.rawPayload };
  });
}
