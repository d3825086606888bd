// pods/proxy and services/proxy: `/api/v1/namespaces/NS/pods/[scheme:]NAME[:PORT]/proxy/PATH` (and services, with
// a port name or number) answered by the pod's simulated HTTP server, as `kubectl proxy` and the Kubernetes Basics
// tutorial use them. A service picks its ready endpoints round robin. Errors are upstream's: 400 for a bad id or a
// pod without an address, 503 when nothing listens or a service has no endpoints.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoints, Pod, Service } from '../generated/k8s/core/v1.js';
import { ApiError, badRequest, methodNotAllowed } from '../machinery/errors.js';
import type { ResourceDef } from '../registry/resource.js';
import type { Registry } from '../registry/registry.js';
import { ServerSlot } from '../util/server-slot.js';
import { simulatedRuntimeFor } from './streaming/runtime.js';
import type { RequestInfo } from './request-info.js';
import { listeningContainer, logRequest } from '../kubelet/well-known-http.js';

const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const maxPathLength = 8192;
/** Each server's next endpoint per Service (by its Registry). */
/** Each server's next endpoint by Service, for round-robin. */
const roundRobins = new ServerSlot('proxy round-robin', () => new Map<string, number>());
const maxServicesTracked = 10_000;
const maxBodyBytes = 1 << 20;
const maxResponseBytes = 4 << 20;
const proxyTimeoutMs = 10_000;
/** Headers of the container's answer passed on to the client (framing headers are the API server's own). */
const passHeaders = new Set(['content-type', 'server', 'date', 'location', 'cache-control', 'etag', 'last-modified']);

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

/** One HTTP/1.1 request as the container's server reads it from a connection. */
function requestBytes(req: FastifyRequest, path: string, host: string): Buffer {
  const body = Buffer.isBuffer(req.body) ? req.body.subarray(0, maxBodyBytes) : Buffer.alloc(0);
  const lines = [`${req.method} ${path} HTTP/1.1`, `Host: ${host}`];
  for (const name of ['user-agent', 'accept', 'content-type']) {
    const v = req.headers[name];
    if (typeof v === 'string' && /^[\x20-\x7e\t]{0,1024}$/.test(v)) lines.push(`${name}: ${v}`);
  }
  lines.push('Connection: close', `Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body]);
}

/** The status, headers and body of the one response the server wrote. */
function parseResponse(raw: Buffer): { status: number; headers: Array<[string, string]>; body: Buffer } | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...headerLines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) return undefined;
  const headers = headerLines.map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]);
  const length = Number(headers.find(([k]) => k.toLowerCase() === 'content-length')?.[1] ?? NaN);
  const body = raw.subarray(end + 4);
  return { status: Number(m[1]), headers, body: Number.isFinite(length) ? body.subarray(0, length) : body };
}

/** Sends the request to the pod's simulated server over a port-forward connection of the container runtime. */
async function answer(reg: Registry, pod: Pod, port: number, req: FastifyRequest, reply: FastifyReply, path: string): Promise<void> {
  const ip = pod.status?.podIP;
  if (!ip) throw badRequest('address not allowed');
  const refused = () => unavailable(`error trying to reach service: dial tcp ${ip}:${port}: connect: connection refused`);
  if (!listeningContainer(pod, port)) throw refused();
  // Loaded on first use: the runtime (and the in-process client it reads through) is not part of start-up.
  const [runtime, { clientFor }] = await Promise.all([simulatedRuntimeFor(reg), import('../client/client.js')]);
  const chunks: Buffer[] = [];
  let size = 0;
  const output = { write(data: Buffer | string) {
    const b = typeof data === 'string' ? Buffer.from(data) : data;
    if (size + b.length > maxResponseBytes) throw new Error('response too large');
    size += b.length;
    chunks.push(b);
  } };
  const request = requestBytes(req, path, `${ip}:${port}`);
  async function* input(): AsyncGenerator<Buffer> {
    yield request;
  }
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), proxyTimeoutMs);
  try {
    await runtime.portForward({ client: clientFor(reg), namespace: pod.metadata?.namespace ?? '', pod: pod.metadata?.name ?? '', port, input: input(), output, signal: ac.signal });
  } catch {
    throw refused();
  } finally {
    clearTimeout(timer);
  }
  const res = parseResponse(Buffer.concat(chunks));
  if (!res) throw refused();
  const ua = req.headers['user-agent'];
  logRequest(reg, pod, port, { method: req.method, path, userAgent: typeof ua === 'string' ? ua.slice(0, 512) : undefined, remoteAddr: '10.244.0.1' }, res.status, res.body.length, reg.clock.nowMs());
  reply.code(res.status);
  for (const [k, v] of res.headers) if (passHeaders.has(k.toLowerCase())) reply.header(k, v);
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
  const ep = reg.getStored('core/endpoints', namespace, name) as Endpoints | undefined;
  const targets: Array<{ pod: string; port: number }> = [];
  for (const subset of ep?.subsets ?? []) {
    const port = (subset.ports ?? []).find((p) => (p.name ?? '') === (sp.name ?? '') || (subset.ports?.length === 1 && !sp.name));
    if (!port) continue;
    for (const a of subset.addresses ?? []) if (a.targetRef?.kind === 'Pod' && a.targetRef.name) targets.push({ pod: a.targetRef.name, port: port.port });
  }
  if (!targets.length) throw unavailable(`no endpoints available for service "${name}"`);
  const key = `${namespace}/${name}`;
  const roundRobin = reg.state(roundRobins);
  if (roundRobin.size >= maxServicesTracked && !roundRobin.has(key)) roundRobin.clear();
  const i = roundRobin.get(key) ?? 0;
  roundRobin.set(key, (i + 1) % targets.length);
  const t = targets[i % targets.length];
  const pod = reg.getStored('core/pods', namespace, t.pod) as Pod | undefined;
  if (!pod) throw unavailable(`no endpoints available for service "${name}"`);
  return { pod, port: t.port };
}

export function handleProxy(reg: Registry, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply): void | Promise<void> {
  if (!methods.includes(req.method)) throw methodNotAllowed();
  const namespace = info.namespace ?? '';
  const id = splitSchemeNamePort(info.name ?? '');
  const kind = def.plural === 'pods' ? 'pod' : 'service';
  if (!id) throw badRequest(`invalid ${kind} request ${JSON.stringify(info.name ?? '')}`);
  const path = proxyPath(req.url, info.name ?? '');
  if (def.plural === 'pods') {
    const pod = reg.get(def, namespace, id.name) as Pod;
    return answer(reg, pod, podPort(pod, id.port), req, reply, path);
  }
  if (def.plural === 'services') {
    const svc = reg.get(def, namespace, id.name) as Service;
    const { pod, port } = servicePod(reg, namespace, svc, id.port);
    return answer(reg, pod, port, req, reply, path);
  }
  // nodes/proxy: no kubelet endpoint is simulated.
  reg.get(def, namespace, id.name);
  throw badRequest(`${def.plural}/proxy is not supported: bonsai simulates pods and runs no containers`);
}
