// The two 404s kube-apiserver gives: a Status from the router of a served group (an unknown resource, version or
// subresource within it), and Go's plain-text `404 page not found` for paths outside every served API.
import type { FastifyReply } from 'fastify';
import { ApiError } from '../machinery/errors.js';
import type { Registry } from '../registry/registry.js';
import { servedVersions } from '../registry/resource.js';
import { metricsResources } from './metrics.js';
import { pathNotFound } from './request-info.js';
import { isUnavailableAggregated } from '../registry/resources/apiservices.js';

/** Thrown for a path no API serves; the error handler answers it as text, not as a Status. */
export class PageNotFound extends ApiError {
  constructor() {
    super(404, 'NotFound', 'the server could not find the requested resource', {});
  }
}

/** Thrown for a path of an APIService nothing answers for; answered as kube-aggregator's plain-text 503. */
export class ServiceUnavailable extends ApiError {
  constructor() {
    super(503, 'ServiceUnavailable', 'service unavailable', {});
  }
}

/** kube-aggregator's answer for an unavailable APIService (http.Error), byte for byte. */
export function sendServiceUnavailable(reply: FastifyReply): void {
  void reply.code(503).header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send('service unavailable\n');
}

/** Go's http.NotFound, byte for byte. */
export function sendPageNotFound(reply: FastifyReply): void {
  void reply.code(404).header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send('404 page not found\n');
}

/**
 * The 404 for `/api/...` or `/apis/<group>/<version>/...` that matched nothing. The core group and every group
 * kube-apiserver serves itself have a router answering any path below them (Status); an aggregated API
 * (metrics.k8s.io, served by metrics-server) answers only for the versions it registered; anything else falls
 * through to the plain-text not-found handler.
 */
export function notFoundFor(reg: Registry, group: string, version: string | undefined): ApiError {
  if (isUnavailableAggregated(reg, group, version)) return new ServiceUnavailable();
  if (group === '' || reg.defs.some((d) => d.group === group && !d.computed)) return pathNotFound();
  if (version && metricsResources.some((d) => d.group === group && servedVersions(d).includes(version))) return pathNotFound();
  return new PageNotFound();
}

/** Group and version named by an API path (`/api/v1/...`, `/apis/g/v/...`), for choosing its 404. */
export function groupVersionOf(url: string): { group: string; version: string | undefined } {
  const parts = url.split('?')[0].split('/').filter((p) => p !== '');
  return parts[0] === 'api' ? { group: '', version: parts[1] } : { group: parts[1] ?? '', version: parts[2] };
}
