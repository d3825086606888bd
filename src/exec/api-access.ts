// https://kubernetes.default.svc from inside a pod, as the docs' "Accessing the Kubernetes API from a Pod" does
// it: wget and curl to the `kubernetes` Service on 443 are answered by the server's own API in process (the server
// installs the handler, src/api/in-cluster.ts), with the pod's mounted token standing for its ServiceAccount.
import type { Pod, Service } from '../generated/k8s/core/v1.js';
import type { ContainerInfo } from './container-info.js';
import type { HttpResponse } from './responder.js';
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';

export interface ApiCall {
  method: string;
  path: string;
  headers: Map<string, string>;
  body: Buffer;
  /** The pod the request comes from (its mounted token authenticates as its ServiceAccount). */
  pod: Pod;
}

export type ApiHandler = (call: ApiCall) => Promise<HttpResponse>;

const handlers = new ServerSlot<{ handler?: ApiHandler }>('in-cluster API', () => ({}));

export function setInClusterApi(reg: ServerStateHolder, handler: ApiHandler | undefined): void {
  reg.state(handlers).handler = handler;
}

/** The API's answer when `ip:port` is the `kubernetes` Service's HTTPS port; undefined for any other address. */
export async function callApi(info: ContainerInfo, ip: string, port: number, call: Omit<ApiCall, 'pod'>): Promise<HttpResponse | 'refused' | undefined> {
  const svc = info.client.get<Service>('v1/services', 'default', 'kubernetes');
  const ips = svc?.spec?.clusterIPs ?? (svc?.spec?.clusterIP ? [svc.spec.clusterIP] : ['10.96.0.1']);
  if (!ips.includes(ip) || port !== 443) return undefined;
  const handler = info.client.state(handlers).handler;
  return handler ? handler({ ...call, pod: info.pod }) : 'refused';
}
