// Audit events of the in-process components' writes (controllers, scheduler, kubelets): they call no HTTP endpoint,
// so their events are made here, with the request URI the same call would have had against kube-apiserver.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { ComponentInfo } from '../auth/identities.js';
import { groups, type Authorizer, type UserInfo } from '../auth/types.js';
import type { ResourceDef } from '../registry/resource.js';
import { auditUser, microTime, nowMicros, type AuditEvent, type AuditLog, type ObjectReference } from './audit-log.js';

export interface ComponentWrite {
  user: UserInfo;
  component: ComponentInfo;
  verb: string;
  def: ResourceDef;
  namespace: string;
  name: string;
  subresource: string;
  /** nowMicros() when the write began. */
  started: number;
  /** The success code and resulting object, or the error. */
  code?: number;
  object?: KObject;
  error?: unknown;
}

export interface ComponentAuditSink {
  now(): number;
  record(w: ComponentWrite): void;
}

function requestUri(w: ComponentWrite, name: string): string {
  const prefix = w.def.group ? `/apis/${w.def.group}/${w.def.version}` : `/api/${w.def.version}`;
  const ns = w.def.namespaced && w.namespace ? `/namespaces/${encodeURIComponent(w.namespace)}` : '';
  const item = w.verb === 'create' && !w.subresource ? '' : `/${encodeURIComponent(name)}`;
  return `${prefix}${ns}/${w.def.plural}${item}${w.subresource ? `/${w.subresource}` : ''}`;
}

const localIPs = ['127.0.0.1'];

/**
 * The reason annotation: what allows the write (as the server's authorizer would have recorded it). Components
 * are trusted, so a write the authorizer would not allow is still recorded, and the reason says so.
 */
function reasonFor(authz: Authorizer | undefined, w: ComponentWrite, ref: ObjectReference): string {
  if (!authz) return '';
  const r = authz.authorize({
    user: w.user, verb: w.verb, resourceRequest: true, path: '', apiGroup: ref.apiGroup ?? '', apiVersion: ref.apiVersion ?? '',
    namespace: ref.namespace ?? '', resource: ref.resource ?? '', subresource: ref.subresource ?? '', name: ref.name ?? '',
  });
  if (r.decision === 'allow') return r.reason;
  // Kubelets are authorized by upstream's Node authorizer, which gives no reason.
  return w.user.groups.includes(groups.nodes) ? '' : 'bonsai: trusted in-process component';
}

export function componentAuditSink(log: AuditLog, authz?: Authorizer): ComponentAuditSink {
  return {
    now: nowMicros,
    record(w) {
      if (!log.enabled) return;
      const name = w.name || w.object?.metadata.name || '';
      const ref: ObjectReference = { resource: w.def.plural };
      if (w.namespace) ref.namespace = w.namespace;
      if (name) ref.name = name;
      if (w.def.group) ref.apiGroup = w.def.group;
      ref.apiVersion = w.def.version;
      if (w.subresource) ref.subresource = w.subresource;
      const base: AuditEvent = {
        kind: 'Event', apiVersion: 'audit.k8s.io/v1', level: log.level, auditID: randomUUID(), stage: 'RequestReceived',
        requestURI: requestUri(w, name), verb: w.verb, user: auditUser(w.user), sourceIPs: localIPs, userAgent: w.component.userAgent,
        objectRef: ref, requestReceivedTimestamp: microTime(w.started), stageTimestamp: microTime(w.started),
      };
      log.write(base);
      const err = w.error instanceof ApiError ? w.error : undefined;
      const responseStatus = err
        ? { metadata: {}, status: 'Failure', message: err.message, reason: err.reason, details: err.details, code: err.code }
        : w.error !== undefined ? { metadata: {}, status: 'Failure', message: String((w.error as Error)?.message ?? w.error), reason: 'InternalError', code: 500 }
          : { metadata: {}, code: w.code ?? 200 };
      const complete: AuditEvent = {
        kind: base.kind, apiVersion: base.apiVersion, level: base.level, auditID: base.auditID, stage: 'ResponseComplete', requestURI: base.requestURI,
        verb: base.verb, user: base.user, sourceIPs: base.sourceIPs, userAgent: base.userAgent, objectRef: ref, responseStatus,
        requestObject: w.object && log.atLeast('Request') && w.verb !== 'delete' ? w.object : undefined,
        responseObject: w.object && log.atLeast('RequestResponse') ? w.object : undefined,
        requestReceivedTimestamp: base.requestReceivedTimestamp, stageTimestamp: microTime(nowMicros()),
        annotations: { 'authorization.k8s.io/decision': 'allow', 'authorization.k8s.io/reason': reasonFor(authz, w, ref) },
      };
      log.write(complete);
    },
  };
}
