// pods/proxy and services/proxy: `/api/v1/namespaces/NS/pods/[scheme:]NAME[:PORT]/proxy/PATH` (and services, with
// a port name or number) answered by the pod's simulated HTTP server, as `kubectl proxy` and the Kubernetes Basics
// tutorial use them. A service picks its ready endpoints round robin. Errors are upstream's: 400 for a bad id or a
// pod without an address, 503 when nothing listens or a service has no endpoints.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoints, Pod, Service } from 'kubernetes-types/core/v1.js';
import { ApiError, badRequest, methodNotAllowed } from '../machinery/errors.js';
import type { ResourceDef } from '../registry/resource.js';
import type { Registry } from '../registry/registry.js';
import type { RequestInfo } from './request-info.js';
import { simulatedHttp } from '../kubelet/well-known-http.js';

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const maxPathLength = 8192;
const roundRobin = new Map<string, number>();
const maxServicesTracked = 10_000;

const unavailable = (message: string) => new ApiError(503, 'ServiceUnavailable', message);

/** `[scheme:]name[:port]` as upstream's SplitSchemeNamePort reads it; undefined when invalid. */
export function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(':');
  let scheme = '';
  let name = '';
  let port = '';
  if (parts.length === 1) name = parts[0];
  else if (parts.length === 2) [name, port] = parts;
  else if (parts.length === 3) [scheme, name, port] = parts;
  else return undefined;
  if (name === '' || (scheme !== '' && scheme !== 'http' && scheme !== 'https')) return undefined;
  return { scheme, name, port };
}

/** The part after `/proxy` in the request URL (with its query), `/` when there is none. */
function proxyPath(url: string, name: string): string {
  const q = url.indexOf('?');
  const path = q >= 0 ? url.slice(0, q) : url;
  const marker = `/${name}/proxy`;
  const at = path.indexOf(marker);
  let rest = at >= 0 ? path.slice(at + marker.length) : '/';
  if (!rest.startsWith('/')) rest = `/${rest}`;
  const out = rest + (q >= 0 ? url.slice(q) : '');
  if (out.length > maxPathLength) throw badRequest('proxy path too long');
  return out;
}

function answer(reg: Registry, pod: Pod, port: number, req: FastifyRequest, reply: FastifyReply, path: string): void {
  const ip = pod.status?.podIP;
  if (!ip) throw badRequest('address not allowed');
  const ua = req.headers['user-agent'];
  const res = simulatedHttp(pod, port, { method: req.method, path, userAgent: typeof ua === 'string' ? ua.slice(0, 512) : undefined, remoteAddr: '10.244.0.1' }, reg.clock.nowMs());
  if ('refused' in res) throw unavailable(`error trying to reach service: dial tcp ${ip}:${port}: connect: connection refused`);
  reply.code(res.status).header('Content-Type', res.contentType);
  if (res.server) reply.header('Server', res.server);
  reply.send(req.method === 'HEAD' ? '' : res.body);
}

function podPort(pod: Pod, port: string): number {
  if (port === '') {
    const declared = (pod.spec?.containers ?? []).find((c) => c.ports?.length)?.ports?.[0]?.containerPort;
    return declared ?? 80;
  }
  const n = Number(port);
  if (/^\d{1,5}$/.test(port) && n > 0 && n < 65536) return n;
  // A named port of a container.
  for (const c of pod.spec?.containers ?? []) for (const p of c.ports ?? []) if (p.name === port) return p.containerPort;
  throw badRequest(`invalid pod request "${pod.metadata?.name}:${port}"`);
}

function servicePod(reg: Registry, namespace: string, svc: Service, portId: string): { pod: Pod; port: number } {
  const name = svc.metadata?.name ?? '';
  const ports = svc.spec?.ports ?? [];
  const sp = portId === '' ? ports[0] : ports.find((p) => p.name === portId || String(p.port) === portId);
  if (!sp) throw unavailable(`no endpoints available for service "${portId === '' ? name : `${name}:${portId}`}"`);
  const ep = reg.getStored('core/endpoints', namespace, name) as unknown as Endpoints | undefined;
  const targets: Array<{ pod: string; port: number }> = [];
  for (const subset of ep?.subsets ?? []) {
    const port = (subset.ports ?? []).find((p) => (p.name ?? '') === (sp.name ?? '') || (subset.ports?.length === 1 && !sp.name));
    if (!port) continue;
    for (const a of subset.addresses ?? []) if (a.targetRef?.kind === 'Pod' && a.targetRef.name) targets.push({ pod: a.targetRef.name, port: port.port });
  }
  if (!targets.length) throw unavailable(`no endpoints available for service "${name}"`);
  const key = `${namespace}/${name}`;
  if (roundRobin.size >= maxServicesTracked && !roundRobin.has(key)) roundRobin.clear();
  const i = roundRobin.get(key) ?? 0;
  roundRobin.set(key, (i + 1) % targets.length);
  const t = targets[i % targets.length];
  const pod = reg.getStored('core/pods', namespace, t.pod) as unknown as Pod | undefined;
  if (!pod) throw unavailable(`no endpoints available for service "${name}"`);
  return { pod, port: t.port };
}

export function handleProxy(reg: Registry, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void {
  if (!methods.includes(req.method)) throw methodNotAllowed();
  const namespace = info.namespace ?? '';
  const id = splitSchemeNamePort(info.name ?? '');
  const kind = def.plural === 'pods' ? 'pod' : 'service';
  if (!id) throw badRequest(`invalid ${kind} request ${JSON.stringify(info.name ?? '')}`);
  const path = proxyPath(req.url, info.name ?? '');
  if (def.plural === 'pods') {
    const pod = reg.get(def, namespace, id.name) as unknown as Pod;
    return answer(reg, pod, podPort(pod, id.port), req, reply, path);
  }
  if (def.plural === 'services') {
    const svc = reg.get(def, namespace, id.name) as unknown as Service;
    const { pod, port } = servicePod(reg, namespace, svc, id.port);
    return answer(reg, pod, port, req, reply, path);
  }
  // nodes/proxy: no kubelet endpoint is simulated.
  reg.get(def, namespace, id.name);
  throw badRequest(`${def.plural}/proxy is not supported: bonsai simulates pods and runs no containers`);
}
