// Resource checks for the dashboard's read paths: the request's user must be allowed what the answer reveals.
import type { FastifyRequest } from 'fastify';
import { authorizationOf, forbiddenError } from '../../auth/authorization.js';
import type { RequestAttributes } from '../../auth/types.js';
import type { Registry } from '../../registry/registry.js';
import '../../auth/fastify-request.js';

export interface ResourceCheck {
  verb: string;
  group: string;
  version: string;
  resource: string;
  namespace?: string;
  name?: string;
}

/** Throws upstream's 403 Status unless `req.user` (after impersonation) may do `c`. */
export function authorize(reg: Registry, req: FastifyRequest, c: ResourceCheck): void {
  const attrs: RequestAttributes = {
    user: req.user, verb: c.verb, resourceRequest: true, path: req.url.split('?')[0], apiGroup: c.group, apiVersion: c.version,
    namespace: c.namespace ?? '', resource: c.resource, subresource: '', name: c.name ?? '',
  };
  const { decision, reason } = authorizationOf(reg).authorize(attrs);
  if (decision !== 'allow') throw forbiddenError(attrs, reason);
}
