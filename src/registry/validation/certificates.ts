// certificates.k8s.io/v1 CertificateSigningRequest validation, as upstream's: the request is a signed PKCS#10 PEM,
// usages known and unique, a qualified signerName (not the legacy one through v1), expirationSeconds at least 600,
// consistent conditions, a PEM certificate; on updates, approval conditions and the certificate change only
// through their subresources and are never removed.
import { X509Certificate } from 'node:crypto';
import {
  fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, type FieldError,
} from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { decodePem, parseCsr } from '../../auth/pki/csr.js';
import { knownUsages, signers } from '../../auth/pki/csr-signing.js';
import { isDns1123Label, isDns1123Subdomain } from '../../machinery/names.js';
import { arr, deepEqual, rec, str, type Errs } from './common.js';

const legacyUnknownSigner = signers.legacyUnknown;
const sortedUsages = [...knownUsages].sort();

/** Go's %#v of a []byte. */
function goBytes(b: Buffer): string {
  return `[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`;
}

function validateSignerName(path: string, signerName: string): Errs {
  if (!signerName) return [fieldRequired(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [fieldInvalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const errs: Errs = [];
  const [domain, rest] = segments;
  if (domain.length > 253) errs.push(fieldTooLong(path, domain, 253));
  const labels = domain.split('.');
  for (const l of labels) {
    const e = isDns1123Label(l);
    if (e.length) {
      errs.push(...e.map((m) => fieldInvalid(path, domain, `validating label "${l}": ${m}`)));
      break;
    }
  }
  if (labels.length < 2) errs.push(fieldInvalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const l of rest.split('.')) {
    const e = isDns1123Subdomain(l);
    if (e.length) {
      errs.push(...e.map((m) => fieldInvalid(path, rest, `validating label "${l}": ${m}`)));
      break;
    }
  }
  const max = 253 + (253 + 63 + 1) + 1;
  if (signerName.length > max) errs.push(fieldTooLong(path, signerName, max));
  return errs;
}

function certificateError(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  let text = pem.toString('latin1');
  let blocks = 0;
  for (;;) {
    const block = decodePem(text);
    if (!block) break;
    if (block.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found "${block.type}"`;
    blocks++;
    try {
      new X509Certificate(block.der);
    } catch {
      return 'x509: malformed certificate';
    }
    text = block.rest;
  }
  return blocks === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

const conditions = (o: KObject | undefined) => arr(rec(o?.status).conditions).map(rec);
const certificateOf = (o: KObject | undefined) => Buffer.from(str(rec(o?.status).certificate) ?? '', 'base64');
const trueOnly = new Set(['Approved', 'Denied', 'Failed']);

function validateConditions(obj: KObject, old: KObject | undefined): Errs {
  const errs: Errs = [];
  const list = conditions(obj);
  const oldList = conditions(old);
  const oldTypes = oldList.map((c) => c.type);
  const allowEmptyType = oldTypes.includes('');
  const allowDuplicates = new Set(oldTypes).size !== oldTypes.length;
  const allowBoth = oldTypes.includes('Approved') && oldTypes.includes('Denied');
  const seen = new Set<unknown>();
  let approved = false;
  let denied = false;
  list.forEach((c, i) => {
    const at = `status.conditions[${i}]`;
    const type = str(c.type) ?? '';
    const status = str(c.status) ?? '';
    if (!type && !allowEmptyType) errs.push(fieldRequired(`${at}.type`));
    const allowed = trueOnly.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (!status) errs.push(fieldRequired(`${at}.status`));
    else if (!allowed.includes(status)) errs.push(fieldNotSupported(`${at}.status`, status, allowed));
    if (!allowBoth) {
      if (type === 'Approved') {
        approved = true;
        if (denied) errs.push(fieldInvalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) errs.push(fieldInvalid(`${at}.type`, type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!allowDuplicates && seen.has(type)) errs.push(fieldDuplicate(`${at}.type`, type));
    seen.add(type);
  });
  return errs;
}

/** What a write may change: approval conditions (the approval subresource), the certificate (status). */
interface CsrWriteRules {
  approval: boolean;
  certificate: boolean;
}

export function validateCertificateSigningRequest(obj: KObject, old: KObject | undefined, rules: CsrWriteRules): FieldError[] {
  const errs: Errs = [];
  const spec = rec(obj.spec);
  const request = Buffer.from(str(spec.request) ?? '', 'base64');
  try {
    parseCsr(request);
  } catch (e) {
    errs.push({ type: 'FieldValueInvalid', field: 'spec.request', message: `Invalid value: ${goBytes(request)}: ${(e as Error).message}` });
  }
  const usages = arr(spec.usages);
  const oldUsages = arr(rec(old?.spec).usages);
  if (usages.length === 0) errs.push(fieldRequired('spec.usages'));
  if (!oldUsages.some((u) => !knownUsages.has(String(u)))) {
    usages.forEach((u, i) => {
      if (!knownUsages.has(String(u))) errs.push(fieldNotSupported(`spec.usages[${i}]`, u, sortedUsages));
    });
  }
  if (new Set(oldUsages).size === oldUsages.length) {
    usages.forEach((u, i) => {
      if (usages.indexOf(u) < i) errs.push(fieldDuplicate(`spec.usages[${i}]`, u));
    });
  }
  const signerName = str(spec.signerName) ?? '';
  if (signerName === legacyUnknownSigner && str(rec(old?.spec).signerName) !== legacyUnknownSigner) {
    errs.push(fieldInvalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  } else if (signerName !== legacyUnknownSigner) errs.push(...validateSignerName('spec.signerName', signerName));
  if (typeof spec.expirationSeconds === 'number' && spec.expirationSeconds < 600) {
    errs.push(fieldInvalid('spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 600 seconds (10 minutes)'));
  }
  errs.push(...validateConditions(obj, old));
  const cert = certificateOf(obj);
  const oldCert = certificateOf(old);
  const certChanged = !old || !cert.equals(oldCert);
  if (certChanged && !(old && certificateError(oldCert))) {
    const why = certificateError(cert);
    if (why) errs.push(fieldInvalid('status.certificate', '<certificate data>', why));
  }
  if (!old) return errs;

  for (const t of ['Approved', 'Denied', 'Failed']) {
    const before = conditions(old).filter((c) => c.type === t);
    const after = conditions(obj).filter((c) => c.type === t);
    if (after.length < before.length) errs.push(fieldForbidden('status.conditions', `updates may not remove a condition of type "${t}"`));
    else if (!rules.approval && (t === 'Approved' || t === 'Denied')) {
      if (after.length > before.length) errs.push(fieldForbidden('status.conditions', `updates may not add a condition of type "${t}"`));
      else if (!deepEqual(after, before)) errs.push(fieldForbidden('status.conditions', `updates may not modify a condition of type "${t}"`));
    }
  }
  if (certChanged) {
    if (!rules.certificate) errs.push(fieldForbidden('status.certificate', 'updates may not set certificate content'));
    else if (oldCert.length > 0) errs.push(fieldForbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  return errs;
}
