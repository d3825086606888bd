// certificates.k8s.io/v1 CertificateSigningRequest: the requester's identity is recorded from the authenticated
// user on create; the spec never changes afterwards; approval conditions change only through `approval`
// (`kubectl certificate approve|deny`) and the certificate only through `status` (the signer).
import { pathGetter } from '../../machinery/fields.js';
import type { KObject } from '../../machinery/types.js';
import { loadX509 } from '../../auth/pki/x509-lib.js';
import { userInfoJson } from '../../auth/types.js';
import { rfc3339 } from '../../util/clock.js';
import type { ResourceDef, StrategyContext } from '../resource.js';
import { validateCertificateSigningRequest } from '../validation/certificates.js';
import { arr, rec, str } from '../validation/common.js';
import { nameIsPathSegment } from '../../machinery/names.js';
import { certificateSigningRequestPrinter } from '../tables/certificates.js';

/** Spec in Go's field order, with the requester's identity replacing whatever the client sent. */
function prepareCreate(obj: KObject, ctx: StrategyContext): void {
  const spec = rec(obj.spec);
  const user = ctx.user;
  const out: Record<string, unknown> = {};
  for (const k of ['request', 'signerName', 'expirationSeconds', 'usages']) if (spec[k] !== undefined) out[k] = spec[k];
  if (user) Object.assign(out, userInfoJson(user));
  obj.spec = out;
  obj.status = {};
}

function prepareUpdate(obj: KObject, old: KObject): void {
  obj.spec = structuredClone(old.spec);
  if (old.status === undefined) delete obj.status;
  else obj.status = structuredClone(old.status);
}

/** A condition as the typed API keeps it, its times filled in as upstream's strategy does. */
function condition(c: Record<string, unknown>, old: Record<string, unknown>[], now: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of ['type', 'status', 'reason', 'message', 'lastUpdateTime', 'lastTransitionTime']) {
    const v = str(c[k]);
    if (v) out[k] = v;
  }
  out.lastUpdateTime ??= now;
  if (!out.lastTransitionTime) {
    const same = old.find((o) => o.type === out.type && o.status === out.status && str(o.lastTransitionTime));
    out.lastTransitionTime = same ? same.lastTransitionTime : now;
  }
  return out;
}

/** The approval subresource writes the conditions and nothing else. */
function approvalMerge(cur: KObject, req: KObject, at: Date): KObject {
  const out = structuredClone(cur);
  const old = arr(rec(cur.status).conditions).map(rec);
  const now = rfc3339(at);
  const conditions = arr(rec(req.status).conditions).map((c) => condition(rec(c), old, now));
  const status = { ...rec(out.status) };
  if (conditions.length) status.conditions = conditions;
  else delete status.conditions;
  out.status = status;
  return out;
}

export const certificateResources: ResourceDef[] = [
  {
    group: 'certificates.k8s.io', version: 'v1', kind: 'CertificateSigningRequest', plural: 'certificatesigningrequests', singular: 'certificatesigningrequest',
    namespaced: false, shortNames: ['csr'], subresources: ['status', 'approval'],
    fieldSelectors: { 'spec.signerName': pathGetter('spec.signerName') },
    load: loadX509, prepareCreate, prepareUpdate, nameValidation: nameIsPathSegment, table: certificateSigningRequestPrinter,
    validate: (obj, old) => validateCertificateSigningRequest(obj, old, { approval: false, certificate: true }),
    partialWrites: {
      approval: { merge: approvalMerge, validate: (obj, old) => validateCertificateSigningRequest(obj, old, { approval: true, certificate: false }) },
    },
  },
];
