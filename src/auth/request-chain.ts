// The request chain after authentication, in upstream's order: audit (RequestReceived), impersonation, then
// authorization. Denials are upstream's 403 Status; every response carries an Audit-Id.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { attributesOf } from '../api/request-info.js';
import type { Authenticator } from './authn/authenticator.js';
import type { AuditLog } from '../audit/audit-log.js';
import { beginRequestAudit, recordRequestBody, recordResponse } from '../audit/http-audit.js';
import { forbiddenError, type Authorization } from './authorization.js';
import { impersonate, impersonationHeaders } from './impersonation.js';
import { authorizesItself } from '../api/bonsai-routes/paths.js';
import '../auth/fastify-request.js';
import { anonymousUser } from './types.js';

export interface RequestChainOptions {
  /** Who requests come from; throws the 401 Status for an invalid credential (or none, with anonymous requests off). */
  authenticator: Authenticator;
  authorization: Authorization;
  audit?: AuditLog;
  /** Paths served to anyone without authentication or authorization (the dashboard's static bundle). */
  isPublic?: (url: string) => boolean;
}

const validAuditId = /^[\x21-\x7e]{1,128}$/;

/**
 * Impersonation and authorization of one request (its user already authenticated in `req.user`); throws the
 * ApiError the request is answered with when it may not proceed.
 */
function authorizeRequest(req: FastifyRequest, reply: FastifyReply, opts: RequestChainOptions): void {
  const attrs = attributesOf(req);
  attrs.user = req.user;
  const sent = req.headers['audit-id'];
  const auditId = typeof sent === 'string' && validAuditId.test(sent) ? sent : randomUUID();
  // Set on the raw response so that hijacked replies (watches) carry it too.
  reply.raw.setHeader('Audit-Id', auditId);
  const audit = opts.audit?.enabled ? beginRequestAudit(opts.audit, auditId, req, reply, attrs) : undefined;
  const headers = impersonationHeaders(req.raw.rawHeaders);
  if (headers.size) {
    req.user = impersonate(req.user, headers, opts.authorization);
    audit?.impersonated(req.user);
    attrs.user = req.user;
  }
  // The dashboard's read paths check `get`/`list` on the resources they reveal themselves (bonsai-routes/).
  const { decision, reason } = !attrs.resourceRequest && authorizesItself(req.url.split('?')[0]) ? { decision: 'allow', reason: '' } : opts.authorization.authorize(attrs);
  audit?.annotate(decision === 'allow' ? 'allow' : 'forbid', reason);
  if (decision !== 'allow') throw forbiddenError(attrs, reason);
}

/** Adds the chain to the server: authentication, then audit, impersonation and authorization, before the body is read. */
export function installRequestChain(app: FastifyInstance, opts: RequestChainOptions): void {
  app.addHook('onRequest', (req, reply, done) => {
    if (opts.isPublic?.(req.url) && (req.method === 'GET' || req.method === 'HEAD')) {
      req.user = anonymousUser;
      done();
      return;
    }
    try {
      req.user = opts.authenticator.authenticateRequest(req.raw);
      authorizeRequest(req, reply, opts);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });
  const audit = opts.audit;
  if (!audit?.enabled) return;
  app.addHook('preHandler', (req, _reply, done) => {
    recordRequestBody(audit, req);
    done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    recordResponse(audit, req, reply, payload);
    done(null, payload);
  });
}
