// authorization.k8s.io access reviews, answered by the server's authorizer (never stored): SubjectAccessReview
// (any user), LocalSubjectAccessReview (one namespace), SelfSubjectAccessReview (`kubectl auth can-i`) and
// SelfSubjectRulesReview (`kubectl auth can-i --list`), with upstream's validation and status texts.
import { badRequest, invalid, type FieldError } from '../../machinery/errors.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import { authorizationOf } from '../../auth/authorization.js';
import type { RequestAttributes, UserInfo } from '../../auth/types.js';
import { adminUser } from '../../auth/types.js';
import type { StrategyContext } from '../resource.js';

const group = 'authorization.k8s.io';
const str = (v: unknown) => (typeof v === 'string' ? v : '');
const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

interface Spec {
  resourceAttributes?: Record<string, unknown>;
  nonResourceAttributes?: Record<string, unknown>;
  raw: Record<string, unknown>;
}

function specOf(obj: KObject): Spec {
  const raw = isRecord(obj.spec) ? obj.spec : {};
  return {
    raw,
    resourceAttributes: isRecord(raw.resourceAttributes) ? raw.resourceAttributes : undefined,
    nonResourceAttributes: isRecord(raw.nonResourceAttributes) ? raw.nonResourceAttributes : undefined,
  };
}

const goString = (s: string) => JSON.stringify(s);

/** Go's %#v of the attribute structs, as upstream's field errors print them. */
function goNonResource(a: Record<string, unknown>): string {
  return `authorization.NonResourceAttributes{Path:${goString(str(a.path))}, Verb:${goString(str(a.verb))}}`;
}

function goMap(v: unknown): string {
  if (!isRecord(v)) return 'map[string]string(nil)';
  const entries = Object.keys(v).sort().map((k) => `${goString(k)}:${goString(str(v[k]))}`);
  return `map[string]string{${entries.join(', ')}}`;
}

/** Go's %#v of the ObjectMeta a review must leave empty. */
function goObjectMeta(m: Record<string, unknown>): string {
  const gen = typeof m.generation === 'number' ? m.generation : 0;
  return `v1.ObjectMeta{Name:${goString(str(m.name))}, GenerateName:${goString(str(m.generateName))}, Namespace:${goString(str(m.namespace))}, `
    + `SelfLink:${goString(str(m.selfLink))}, UID:${goString(str(m.uid))}, ResourceVersion:${goString(str(m.resourceVersion))}, Generation:${gen}, `
    + 'CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), '
    + `Labels:${goMap(m.labels)}, Annotations:${goMap(m.annotations)}, OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), `
    + 'ManagedFields:[]v1.ManagedFieldsEntry(nil)}';
}

const invalidValue = (field: string, rendered: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}: ${detail}` });

function isEmptyValue(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isRecord(v)) return Object.keys(v).length === 0;
  return false;
}

function metadataErrors(obj: KObject, allowNamespace: boolean): FieldError[] {
  const meta = (isRecord(obj.metadata) ? obj.metadata : {}) as Record<string, unknown>;
  const filled = Object.keys(meta).some((k) => k !== 'managedFields' && !(allowNamespace && k === 'namespace') && !isEmptyValue(meta[k]));
  if (!filled) return [];
  return [invalidValue('metadata', goObjectMeta(meta), allowNamespace ? 'must be empty except for namespace' : 'must be empty')];
}

function specErrors(spec: Spec, subject: boolean): FieldError[] {
  const errs: FieldError[] = [];
  if (spec.resourceAttributes && spec.nonResourceAttributes) {
    errs.push(invalidValue('spec.nonResourceAttributes', goNonResource(spec.nonResourceAttributes), 'cannot be specified in combination with resourceAttributes'));
  }
  if (!spec.resourceAttributes && !spec.nonResourceAttributes) {
    errs.push(invalidValue('spec.resourceAttributes', '"null"', 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  }
  if (subject && !str(spec.raw.user) && strings(spec.raw.groups).length === 0) {
    errs.push(invalidValue('spec.user', goString(str(spec.raw.user)), 'at least one of user or group must be specified'));
  }
  return errs;
}

function userFromSpec(raw: Record<string, unknown>): UserInfo {
  const u: UserInfo = { username: str(raw.user), groups: strings(raw.groups) };
  if (str(raw.uid)) u.uid = str(raw.uid);
  if (isRecord(raw.extra)) {
    const extra = Object.create(null) as Record<string, string[]>;
    for (const k of Object.keys(raw.extra)) extra[k] = strings(raw.extra[k]);
    u.extra = extra;
  }
  return u;
}

function attributesOf(user: UserInfo, spec: Spec): RequestAttributes {
  const base = { user, path: '', apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  const ra = spec.resourceAttributes;
  if (ra) {
    return {
      ...base, resourceRequest: true, verb: str(ra.verb), namespace: str(ra.namespace), apiGroup: str(ra.group), apiVersion: str(ra.version) || '*',
      resource: str(ra.resource), subresource: str(ra.subresource), name: str(ra.name),
    };
  }
  const na = spec.nonResourceAttributes ?? {};
  return { ...base, resourceRequest: false, verb: str(na.verb), path: str(na.path) };
}

function answer(obj: KObject, kind: string, ctx: StrategyContext, user: UserInfo, spec: Spec): KObject {
  const { decision, reason } = authorizationOf(ctx.registry).authorize(attributesOf(user, spec));
  const status: Record<string, unknown> = { allowed: decision === 'allow' };
  if (decision === 'deny') status.denied = true;
  if (reason) status.reason = reason;
  return { ...obj, apiVersion: `${group}/v1`, kind, metadata: { ...obj.metadata, creationTimestamp: undefined }, status };
}

export function subjectAccessReview(obj: KObject, ctx: StrategyContext): KObject {
  const spec = specOf(obj);
  const errs = [...specErrors(spec, true), ...metadataErrors(obj, false)];
  if (errs.length) throw invalid('SubjectAccessReview', group, '', errs);
  return answer(obj, 'SubjectAccessReview', ctx, userFromSpec(spec.raw), spec);
}

export function localSubjectAccessReview(obj: KObject, ctx: StrategyContext): KObject {
  const spec = specOf(obj);
  const namespace = obj.metadata.namespace ?? '';
  if (!namespace) throw badRequest('namespace is required on this type: ');
  const errs = [...specErrors(spec, true), ...metadataErrors(obj, true)];
  if (spec.resourceAttributes && str(spec.resourceAttributes.namespace) !== namespace) {
    errs.push(invalidValue('spec.resourceAttributes.namespace', goString(str(spec.resourceAttributes.namespace)), 'must match metadata.namespace'));
  }
  if (spec.nonResourceAttributes) errs.push(invalidValue('spec.nonResourceAttributes', goNonResource(spec.nonResourceAttributes), 'disallowed on this kind of request'));
  if (errs.length) throw invalid('LocalSubjectAccessReview', group, '', errs);
  return answer(obj, 'LocalSubjectAccessReview', ctx, userFromSpec(spec.raw), spec);
}

export function selfSubjectAccessReview(obj: KObject, ctx: StrategyContext): KObject {
  const spec = specOf(obj);
  const errs = [...specErrors(spec, false), ...metadataErrors(obj, false)];
  if (errs.length) throw invalid('SelfSubjectAccessReview', group, '', errs);
  return answer(obj, 'SelfSubjectAccessReview', ctx, ctx.user ?? adminUser, spec);
}

export function selfSubjectRulesReview(obj: KObject, ctx: StrategyContext): KObject {
  const spec = isRecord(obj.spec) ? obj.spec : {};
  const namespace = str(spec.namespace);
  if (!namespace) throw badRequest('no namespace on request');
  const status = authorizationOf(ctx.registry).rulesReview(ctx.user ?? adminUser, namespace);
  return { apiVersion: `${group}/v1`, kind: 'SelfSubjectRulesReview', metadata: {}, spec: {}, status };
}
