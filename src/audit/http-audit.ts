// Audit events of HTTP requests: RequestReceived once the user is known, ResponseStarted when a watch's headers
// go out, ResponseComplete when the response has ended (with the Status of a failure, the decision annotations, and
// the request and response bodies at the Request and RequestResponse levels).
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RequestAttributes, UserInfo } from '../auth/types.js';
import { auditUser, microTime, nowMicros, type AuditEvent, type AuditLog, type ObjectReference, type ResponseStatus } from './audit-log.js';

/** What one request's audit events accumulate. */
export class RequestAudit {
  private readonly event: AuditEvent;
  private readonly received: number;
  requestObject: unknown;
  responseObject: unknown;
  private status: Omit<ResponseStatus, 'metadata' | 'code'> | undefined;
  private done = false;

  constructor(private readonly log: AuditLog, id: string, req: FastifyRequest, a: RequestAttributes) {
    this.received = nowMicros();
    const ref: ObjectReference | undefined = a.resourceRequest ? objectRef(a) : undefined;
    this.event = {
      kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: log.level, auditID: id, stage: 'RequestReceived', requestURI: req.url,
      verb: a.verb, user: auditUser(a.user), sourceIPs: sourceIPs(req), userAgent: req.headers['user-agent'], objectRef: ref,
      requestReceivedTimestamp: microTime(this.received), stageTimestamp: microTime(this.received),
    };
    this.emit('RequestReceived');
  }

  impersonated(user: UserInfo): void {
    this.event.impersonatedUser = auditUser(user);
  }

  annotate(decision: 'allow' | 'forbid', reason: string): void {
    this.event.annotations = { 'authorization.k8s.io/decision': decision, 'authorization.k8s.io/reason': reason };
  }

  /** The decoded request object (create/update bodies): names the objectRef and is logged at Request level. */
  recordRequestObject(obj: unknown): void {
    // The body as sent (JSON) is kept when there is one; a decoded protobuf or YAML body stands in otherwise.
    // A copy: the write pipeline goes on to change the decoded object (YAML and protobuf nest at most 300 levels).
    if (this.requestObject === undefined && this.log.atLeast('Request')) this.requestObject = structuredClone(obj);
    const ref = this.event.objectRef;
    const meta = (obj !== null && typeof obj === 'object' ? (obj as { metadata?: unknown }).metadata : undefined) as Record<string, unknown> | undefined;
    if (!ref || !meta || typeof meta !== 'object') return;
    if (!ref.namespace && typeof meta.namespace === 'string' && meta.namespace) ref.namespace = meta.namespace;
    if (!ref.name && typeof meta.name === 'string' && meta.name) ref.name = meta.name;
  }

  /** A failure Status (or a Success Status, as deletes answer) the response carried. */
  recordStatus(s: Record<string, unknown>): void {
    const pick = (k: string) => (typeof s[k] === 'string' && s[k] ? (s[k] as string) : undefined);
    this.status = { status: pick('status'), message: pick('message'), reason: pick('reason'), details: s.details ?? undefined };
  }

  private emit(stage: AuditEvent['stage'], code?: number): void {
    const e = this.event;
    const full = stage === 'ResponseComplete';
    // Built in upstream's key order.
    const out: AuditEvent = {
      kind: e.kind, apiVersion: e.apiVersion, level: e.level, auditID: e.auditID, stage, requestURI: e.requestURI, verb: e.verb, user: e.user,
      impersonatedUser: stage === 'RequestReceived' ? undefined : e.impersonatedUser, sourceIPs: e.sourceIPs, userAgent: e.userAgent, objectRef: e.objectRef && orderedRef(e.objectRef),
      responseStatus: code === undefined ? undefined : { metadata: {}, ...this.status, code },
      requestObject: full && this.log.atLeast('Request') ? this.requestObject : undefined,
      responseObject: full && this.log.atLeast('RequestResponse') ? this.responseObject : undefined,
      requestReceivedTimestamp: e.requestReceivedTimestamp, stageTimestamp: microTime(nowMicros()),
      annotations: stage === 'RequestReceived' ? undefined : e.annotations,
    };
    this.log.write(out);
  }

  started(code: number): void {
    this.emit('ResponseStarted', code);
  }

  complete(code: number): void {
    if (this.done) return;
    this.done = true;
    this.emit('ResponseComplete', code);
  }
}

/** The reference with its keys in upstream's order (name and namespace may be learnt from the body later). */
function orderedRef(r: ObjectReference): ObjectReference {
  return {
    resource: r.resource, namespace: r.namespace, name: r.name, uid: r.uid, apiGroup: r.apiGroup, apiVersion: r.apiVersion,
    resourceVersion: r.resourceVersion, subresource: r.subresource,
  };
}

function objectRef(a: RequestAttributes): ObjectReference {
  const ref: ObjectReference = { resource: a.resource };
  if (a.namespace) ref.namespace = a.namespace;
  if (a.name) ref.name = a.name;
  if (a.apiGroup) ref.apiGroup = a.apiGroup;
  if (a.apiVersion) ref.apiVersion = a.apiVersion;
  if (a.subresource) ref.subresource = a.subresource;
  return ref;
}

/** X-Forwarded-For entries, then X-Real-Ip, then the peer (as upstream's SourceIPs), at most a few. */
function sourceIPs(req: FastifyRequest): string[] {
  const out: string[] = [];
  const fwd = req.headers['x-forwarded-for'];
  if (typeof fwd === 'string') for (const ip of fwd.split(',').slice(0, 8)) if (ip.trim()) out.push(ip.trim());
  const real = req.headers['x-real-ip'];
  if (typeof real === 'string' && real.trim() && !out.includes(real.trim())) out.push(real.trim());
  const peer = req.socket?.remoteAddress;
  if (peer && !out.includes(peer)) out.push(peer);
  return out;
}

const requestAudits = new WeakMap<object, RequestAudit>();

export function auditOf(req: FastifyRequest): RequestAudit | undefined {
  return requestAudits.get(req.raw);
}

/** Starts the audit of a request; its ResponseComplete event is written when the response closes. */
export function beginRequestAudit(log: AuditLog, id: string, req: FastifyRequest, reply: FastifyReply, a: RequestAttributes): RequestAudit {
  const audit = new RequestAudit(log, id, req, a);
  requestAudits.set(req.raw, audit);
  const res = reply.raw;
  if (a.verb === 'watch') {
    // A watch is long-running: ResponseStarted when its headers go out.
    const writeHead = res.writeHead;
    res.writeHead = function (this: typeof res, ...args: Parameters<typeof res.writeHead>) {
      res.writeHead = writeHead;
      const r = writeHead.apply(this, args);
      audit.started(res.statusCode);
      return r;
    } as typeof res.writeHead;
  }
  res.once('close', () => audit.complete(res.statusCode));
  return audit;
}

/**
 * Records what a response carries (the Status of a failure; the object at RequestResponse level); called from the
 * onSend hook with the serialised payload.
 */
export function recordResponse(log: AuditLog, req: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  const audit = auditOf(req);
  if (!audit) return;
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined;
  if (text === undefined || !/json/.test(String(reply.getHeader('content-type') ?? ''))) return;
  const isStatus = text.startsWith('{"kind":"Status"');
  const wantBody = log.atLeast('RequestResponse');
  if (!isStatus && !wantBody) return;
  if (text.length > 4 * 1024 * 1024) return;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return;
  }
  if (isStatus && body !== null && typeof body === 'object') audit.recordStatus(body as Record<string, unknown>);
  if (wantBody) audit.responseObject = body;
}

/** Records the request body at Request level (JSON bodies; decoded objects are recorded by the decoder). */
export function recordRequestBody(log: AuditLog, req: FastifyRequest): void {
  const audit = auditOf(req);
  if (!audit || audit.requestObject !== undefined || !log.atLeast('Request')) return;
  const body = req.body;
  if (!Buffer.isBuffer(body) || !body.length || !/json/.test(String(req.headers['content-type'] ?? ''))) return;
  try {
    audit.requestObject = JSON.parse(body.toString('utf8'));
  } catch {
    /* not JSON after all: nothing to record */
  }
}
