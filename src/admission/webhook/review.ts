// AdmissionReview (admission.k8s.io/v1): the request a webhook receives, the object in the version the webhook's
// rule matched, and the checks upstream makes of the response (webhook/request/admissionreview.go).
import type { AdmissionAttributes } from '../types.js';
import { apiVersionOf, isRecord, type KObject } from '../../machinery/types.js';
import { storageApiVersion } from '../../registry/resource.js';
import { userInfoJson } from '../../auth/types.js';
import type { RuleMatch } from './rules.js';

/**
 * A subresource presented as an object of its own kind (the scale subresource's autoscaling/v1 Scale) is not the
 * resource's kind: it is passed as it is, never converted or relabelled as the parent resource.
 */
const ownKind = (match: RuleMatch) => match.kind.kind !== match.def.kind;

/** The stored object as the matched version serves it. */
export function toMatchedVersion(match: RuleMatch, obj: KObject | undefined): KObject | undefined {
  if (!obj) return undefined;
  if (ownKind(match)) return structuredClone(obj);
  const def = match.def;
  const version = match.resource.version;
  const converted = def.toVersion && (version !== def.version || def.sharedStorage) ? def.toVersion(structuredClone(obj), version) : structuredClone(obj);
  return { ...converted, apiVersion: apiVersionOf(def.group, version), kind: def.kind };
}

/** An object of the matched version back in the storage form. */
export function fromMatchedVersion(match: RuleMatch, obj: KObject): KObject {
  if (ownKind(match)) return obj;
  const def = match.def;
  const version = match.resource.version;
  const converted = def.fromVersion && (version !== def.version || def.sharedStorage) ? def.fromVersion(obj, version) : obj;
  return { ...converted, apiVersion: storageApiVersion(def), kind: def.sharedStorage ? converted.kind ?? def.kind : def.kind };
}

/** admission.k8s.io/v1 AdmissionRequest (also CEL's `request`, without object and oldObject). */
export function admissionRequest(a: AdmissionAttributes, match: RuleMatch, uid: string): Record<string, unknown> {
  const req: Record<string, unknown> = {
    uid,
    kind: { group: match.kind.group, version: match.kind.version, kind: match.kind.kind },
    resource: { group: match.resource.group, version: match.resource.version, resource: match.resource.resource },
  };
  if (a.subresource) req.subResource = a.subresource;
  req.requestKind = { group: a.kind.group, version: a.kind.version, kind: a.kind.kind };
  req.requestResource = { group: a.resource.group, version: a.resource.version, resource: a.resource.resource };
  if (a.subresource) req.requestSubResource = a.subresource;
  if (a.name) req.name = a.name;
  if (a.namespace) req.namespace = a.namespace;
  req.operation = a.operation;
  req.userInfo = userInfoJson(a.user);
  return req;
}

export function admissionReview(a: AdmissionAttributes, match: RuleMatch, uid: string, object: KObject | undefined, oldObject: KObject | undefined): Record<string, unknown> {
  const request = admissionRequest(a, match, uid);
  request.object = object ?? null;
  request.oldObject = oldObject ?? null;
  request.dryRun = a.dryRun;
  request.options = a.options ?? null;
  return { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request };
}

export interface VerifiedResponse {
  allowed: boolean;
  result: unknown;
  warnings: string[];
  auditAnnotations: Record<string, string>;
  patch?: unknown[];
}

/** Checks a decoded response as upstream's VerifyAdmissionResponse does; throws the reason as an Error. */
export function verifyResponse(review: unknown, uid: string, mutating: boolean): VerifiedResponse {
  if (!isRecord(review)) throw new Error('webhook response was absent');
  const response = review.response;
  if (!isRecord(response)) throw new Error('webhook response was absent');
  // Go decodes the review into typed fields: a non-boolean `allowed` fails the decoding, as a failed call.
  if (response.allowed !== undefined && response.allowed !== null && typeof response.allowed !== 'boolean') {
    throw new Error(`json: cannot unmarshal ${typeof response.allowed} into Go struct field AdmissionResponse.response.allowed of type bool`);
  }
  if (response.uid !== uid) throw new Error(`expected response.uid="${uid}", got "${typeof response.uid === 'string' ? response.uid : ''}"`);
  if (review.apiVersion !== 'admission.k8s.io/v1' || review.kind !== 'AdmissionReview') {
    const [group, version] = typeof review.apiVersion === 'string' && review.apiVersion.includes('/') ? review.apiVersion.split('/', 2) : ['', typeof review.apiVersion === 'string' ? review.apiVersion : ''];
    throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${group}/${version}, Kind=${typeof review.kind === 'string' ? review.kind : ''}`);
  }
  const hasPatch = typeof response.patch === 'string' && response.patch.length > 0;
  const hasType = response.patchType !== undefined && response.patchType !== null;
  let patch: unknown[] | undefined;
  if (mutating) {
    if (hasPatch && !hasType) throw new Error('webhook returned response.patch but not response.patchType');
    if (!hasPatch && hasType) throw new Error('webhook returned response.patchType but not response.patch');
    if (hasType && (typeof response.patchType !== 'string' || response.patchType === '')) throw new Error(`webhook returned invalid response.patchType of "${String(response.patchType ?? '')}"`);
    if (hasPatch) {
      if (response.patchType !== 'JSONPatch') throw new PatchError(`unsupported patch type "${String(response.patchType)}"`);
      patch = decodePatch(response.patch as string);
    }
  } else {
    if (hasPatch) throw new Error('validating webhook may not return response.patch');
    if (hasType) throw new Error('validating webhook may not return response.patchType');
  }
  const warnings = Array.isArray(response.warnings) ? response.warnings.filter((w): w is string => typeof w === 'string').slice(0, 100) : [];
  const auditAnnotations: Record<string, string> = Object.create(null) as Record<string, string>;
  if (isRecord(response.auditAnnotations)) {
    for (const [k, v] of Object.entries(response.auditAnnotations).slice(0, 100)) if (typeof v === 'string') auditAnnotations[k] = v;
  }
  return { allowed: response.allowed === true, result: response.status, warnings, auditAnnotations, patch };
}

/** The base64 `patch` of a response, decoded to a JSON Patch (an array of operations). */
function decodePatch(b64: string): unknown[] {
  const text = Buffer.from(b64, 'base64').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new PatchError(`received undecodable patch in webhook response: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!Array.isArray(parsed)) throw new PatchError('received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  return parsed;
}

/** A patch the webhook sent that cannot be used: its message is the whole reason (no `received invalid webhook response` prefix). */
export class PatchError extends Error {}
