// Calls a webhook: POSTs an AdmissionReview over HTTPS to clientConfig.url, or to clientConfig.service resolved
// through the simulated cluster (ExternalName, else a ready EndpointSlice/Endpoints address this process can reach).
// Bounded: a deadline (timeoutSeconds, announced as `?timeout=Ns`) and a response size limit. Errors read as Go's.
import { request } from 'node:https';
import { isIP } from 'node:net';
import type { AdmissionServer } from '../types.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { forwardTarget, reachable } from './service-forward.js';

/** Largest response body read from a webhook. */
export const maxResponseBytes = 3 * 1024 * 1024;

/** A Service whose endpoints are simulated pods, answered by the simulation (see service-forward.ts). */
export interface SimulatedTarget { simulated: string }

interface Target {
  /** The URL as upstream's client names it in errors (service DNS name for service references). */
  url: string;
  host: string;
  port: number;
  path: string;
  servername?: string;
}

/** A transport-level failure, its message the `reason` upstream prints after `failed to call webhook: `. */
export class TransportError extends Error {}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

function hostPort(host: string, port: number): string {
  return isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The address behind a ClusterIP service port: a ready endpoint of an EndpointSlice, else of Endpoints. */
function endpointFor(registry: AdmissionServer, ns: string, name: string, portName: string): { ip: string; port: number } | 'none' {
  const slices = registry.listStored('discovery.k8s.io/endpointslices', ns).filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === name);
  for (const s of slices) {
    for (const p of Array.isArray(s.ports) ? s.ports.filter(isRecord) : []) {
      if (str(p.name) !== portName || typeof p.port !== 'number') continue;
      for (const e of Array.isArray(s.endpoints) ? s.endpoints.filter(isRecord) : []) {
        const ready = isRecord(e.conditions) ? e.conditions.ready : undefined;
        const ip = Array.isArray(e.addresses) ? str(e.addresses[0]) : '';
        if (ip && ready !== false) return { ip, port: p.port };
      }
    }
  }
  const eps = registry.getStored('core/endpoints', ns, name) as (KObject & { subsets?: unknown }) | undefined;
  for (const subset of Array.isArray(eps?.subsets) ? eps.subsets.filter(isRecord) : []) {
    const port = (Array.isArray(subset.ports) ? subset.ports.filter(isRecord) : []).find((p) => str(p.name) === portName);
    const addr = (Array.isArray(subset.addresses) ? subset.addresses.filter(isRecord) : [])[0];
    if (port && typeof port.port === 'number' && addr && str(addr.ip)) return { ip: str(addr.ip), port: port.port };
  }
  return 'none';
}

/**
 * Where to send the review, or the Service the simulation answers for; throws TransportError (with the URL) when the
 * service cannot be resolved.
 */
export function resolveTarget(registry: AdmissionServer, clientConfig: unknown, timeoutSeconds: number): Target | SimulatedTarget {
  const cc = isRecord(clientConfig) ? clientConfig : {};
  const query = `?timeout=${timeoutSeconds}s`;
  if (isRecord(cc.service)) {
    const ns = str(cc.service.namespace);
    const name = str(cc.service.name);
    const port = typeof cc.service.port === 'number' ? cc.service.port : 443;
    // No path is the root: the request goes to `/` and the messages print it, as upstream's client does.
    const path = str(cc.service.path) || '/';
    const dnsName = `${name}.${ns}.svc`;
    const url = `https://${dnsName}:${port}${path}${query}`;
    const fail = (why: string): never => { throw new TransportError(`Post "${url}": ${why}`); };
    const svc = registry.getStored('core/services', ns, name);
    if (!svc) return fail(`service "${name}" not found`);
    const spec = isRecord(svc.spec) ? svc.spec : {};
    if (spec.type === 'ExternalName') {
      const host = str(spec.externalName);
      return { url, host, port, path: `${path}${query}`, servername: dnsName };
    }
    if (spec.clusterIP === 'None') return fail('cannot route to service with ClusterIP "None"');
    const forward = forwardTarget(svc, port);
    if (forward && 'error' in forward) return fail(forward.error);
    if (forward) return { url, host: forward.host, port: forward.port, path: `${path}${query}`, servername: dnsName };
    const svcPort = (Array.isArray(spec.ports) ? spec.ports.filter(isRecord) : []).find((p) => p.port === port);
    if (!svcPort) return fail(`no service port ${port} found for service "${name}"`);
    const ep = endpointFor(registry, ns, name, str(svcPort.name));
    if (ep === 'none') return fail(`no endpoints available for service "${name}"`);
    if (!reachable(ep.ip)) {
      if (registry.simulatedWebhooks === 'allow') return { simulated: `${ns}/${name}` };
      return fail(`dial tcp ${hostPort(ep.ip, ep.port)}: connect: no route to host (a simulated address: webhook servers must listen on this machine)`);
    }
    return { url, host: ep.ip, port: ep.port, path: `${path}${query}`, servername: dnsName };
  }
  const u = new URL(str(cc.url));
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
  const port = u.port ? Number(u.port) : 443;
  const path = `${u.pathname || '/'}${query}`;
  // The host as written (Node's URL drops a default `:443`, Go keeps it in its messages).
  const written = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#@]*@)?([^/?#]*)/i.exec(str(cc.url))?.[1] || u.host;
  return { url: `${u.protocol}//${written}${path}`, host, port, path, servername: isIP(host) ? undefined : host };
}

/** Go's wording for the common Node transport errors. */
function goReason(e: unknown, t: Target): string {
  const code = isRecord(e) && typeof e.code === 'string' ? e.code : '';
  const msg = e instanceof Error ? e.message : String(e);
  switch (code) {
    case 'ECONNREFUSED': return `dial tcp ${hostPort(t.host, t.port)}: connect: connection refused`;
    case 'ENOTFOUND': return `dial tcp: lookup ${t.host}: no such host`;
    case 'ECONNRESET': return 'read: connection reset by peer';
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'tls: failed to verify certificate: x509: certificate signed by unknown authority';
    case 'ERR_TLS_CERT_ALTNAME_INVALID': return `tls: failed to verify certificate: x509: certificate is not valid for ${t.servername ?? t.host}`;
    case 'CERT_HAS_EXPIRED': return 'tls: failed to verify certificate: x509: certificate has expired or is not yet valid';
    default: return msg;
  }
}

/** What rest-client says about a non-2xx answer (a Status body's message when there is one). */
function httpFailure(status: number, body: string): string {
  try {
    const s: unknown = JSON.parse(body);
    if (isRecord(s) && s.kind === 'Status' && typeof s.message === 'string') return s.message;
  } catch { /* not a Status */ }
  if (status === 404) return 'the server could not find the requested resource';
  if (status >= 500) return `an error on the server (${JSON.stringify(body.slice(0, 1024))}) has prevented the request from succeeding`;
  return `the server responded with the status code ${status} but did not return more information`;
}

/**
 * POSTs `body` and returns the decoded response. Rejects with TransportError (connection, TLS, HTTP status, deadline)
 * or with a plain Error for an undecodable body.
 */
export function postReview(target: Target, caBundle: unknown, body: string, timeoutSeconds: number): Promise<unknown> {
  const ca = typeof caBundle === 'string' && caBundle ? Buffer.from(caBundle, 'base64').toString('utf8') : undefined;
  const controller = new AbortController();
  let timedOut = false;
  return new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => { timedOut = true; controller.abort(); }, timeoutSeconds * 1000);
    const finish = (fn: () => void) => { clearTimeout(timer); fn(); };
    const fail = (reason: string) => finish(() => reject(new TransportError(`Post "${target.url}": ${reason}`)));
    const req = request({
      host: target.host, port: target.port, path: target.path, method: 'POST', servername: target.servername, ca,
      signal: controller.signal, agent: false,
      headers: { 'content-type': 'application/json', accept: 'application/json, */*', 'content-length': Buffer.byteLength(body) },
    }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxResponseBytes) {
          res.destroy();
          fail(`response body larger than ${maxResponseBytes} bytes`);
          return;
        }
        chunks.push(c);
      });
      res.on('error', (e) => fail(timedOut ? 'context deadline exceeded' : goReason(e, target)));
      res.on('end', () => {
        if (size > maxResponseBytes) return;
        const text = Buffer.concat(chunks).toString('utf8');
        const status = res.statusCode ?? 0;
        if (status < 200 || status > 299) return fail(httpFailure(status, text));
        finish(() => {
          try {
            resolve(JSON.parse(text));
          } catch (e) {
            reject(new Error(`couldn't get version/kind; json parse error: ${e instanceof Error ? e.message : String(e)}`));
          }
        });
      });
    });
    req.on('error', (e) => fail(timedOut ? 'context deadline exceeded' : goReason(e, target)));
    req.end(body);
  });
}
