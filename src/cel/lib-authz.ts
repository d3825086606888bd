// Kubernetes' authorizer library for admission CEL (`authorizer.group('apps').resource('deployments').namespace('x')
// .check('create').allowed()`, `authorizer.path('/healthz').check('get')`, `authorizer.serviceAccount(ns, name)`,
// `authorizer.requestResource`): checks answered by the server's own authorization, as the request's user or the
// service account named. The values are opaque messages whose payload carries the check being built.
import { celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { makeOpaque, opaquePayload, opaqueTypes } from './opaque.js';

const { STRING, BOOL } = CelScalar;

/** What a check asks: a user, then a path or group/resource/... as upstream's authorizer.Attributes. */
export interface AuthzRequest {
  username: string;
  groups: string[];
  uid?: string;
  extra?: Record<string, string[]>;
  path?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  namespace?: string;
  name?: string;
  verb?: string;
}

export type AuthzAnswer = { decision: 'allow' | 'deny' | 'noOpinion'; reason: string; error?: string };

/** The server's authorization, as the library calls it; bound to each `authorizer` value. */
export type AuthzCheck = (req: AuthzRequest) => AuthzAnswer;

interface AuthzState {
  check: AuthzCheck;
  req: AuthzRequest;
}

interface DecisionState {
  answer: AuthzAnswer;
}

const A = opaqueTypes.authorizer;
const P = opaqueTypes.pathCheck;
const G = opaqueTypes.groupCheck;
const R = opaqueTypes.resourceCheck;
const D = opaqueTypes.decision;

const state = (v: unknown): AuthzState => {
  const s = opaquePayload<AuthzState>(v as ReflectMessage);
  if (!s) throw new Error('authorizer: no authorizer is bound');
  return s;
};
const next = (kind: 'authorizer' | 'pathCheck' | 'groupCheck' | 'resourceCheck', from: unknown, change: Partial<AuthzRequest>) => {
  const s = state(from);
  const req = { ...s.req, ...change };
  return makeOpaque(kind, JSON.stringify(req), { check: s.check, req });
};
const decide = (from: unknown, verb: string) => {
  const s = state(from);
  let answer: AuthzAnswer;
  try {
    answer = s.check({ ...s.req, verb });
  } catch (e) {
    answer = { decision: 'noOpinion', reason: '', error: e instanceof Error ? e.message : String(e) };
  }
  return makeOpaque('decision', JSON.stringify(answer), { answer });
};
const answerOf = (v: unknown): AuthzAnswer => opaquePayload<DecisionState>(v as ReflectMessage)?.answer ?? { decision: 'noOpinion', reason: '' };

/** The `authorizer` variable for a request: checks run as `user` through `check`. */
export function authorizerValue(check: AuthzCheck, user: { username: string; groups: string[]; uid?: string; extra?: Record<string, string[]> }): ReflectMessage {
  const req: AuthzRequest = { username: user.username, groups: [...user.groups], uid: user.uid, extra: user.extra };
  return makeOpaque('authorizer', JSON.stringify(req), { check, req });
}

/** `authorizer.requestResource`: a check of the request's own resource, verb still to choose. */
export function requestResourceValue(authorizer: ReflectMessage, r: { group: string; resource: string; subresource: string; namespace: string; name: string }): ReflectMessage {
  return next('resourceCheck', authorizer, r);
}

export const authzFuncs: CelFunc[] = [
  celMethod('path', A, [STRING], P, function (path) { return next('pathCheck', this, { path }); }),
  celMethod('group', A, [STRING], G, function (group) { return next('groupCheck', this, { group }); }),
  celMethod('serviceAccount', A, [STRING, STRING], A, function (namespace, name) {
    return next('authorizer', this, {
      username: `system:serviceaccount:${namespace}:${name}`, uid: undefined, extra: undefined,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
    });
  }),
  celMethod('resource', G, [STRING], R, function (resource) { return next('resourceCheck', this, { resource }); }),
  celMethod('subresource', R, [STRING], R, function (subresource) { return next('resourceCheck', this, { subresource }); }),
  celMethod('namespace', R, [STRING], R, function (namespace) { return next('resourceCheck', this, { namespace }); }),
  celMethod('name', R, [STRING], R, function (name) { return next('resourceCheck', this, { name }); }),
  celMethod('check', R, [STRING], D, function (verb) { return decide(this, verb); }),
  celMethod('check', P, [STRING], D, function (verb) { return decide(this, verb); }),
  celMethod('allowed', D, [], BOOL, function () { return answerOf(this).decision === 'allow'; }),
  celMethod('reason', D, [], STRING, function () { return answerOf(this).reason; }),
  celMethod('errored', D, [], BOOL, function () { return answerOf(this).error !== undefined; }),
  celMethod('error', D, [], STRING, function () { return answerOf(this).error ?? ''; }),
];


