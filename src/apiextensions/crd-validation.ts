// Validation of CustomResourceDefinition objects (apiextensions.k8s.io/v1), with the field paths and messages of
// apiextensions-apiserver's validation.go (Kubernetes 1.35). The generic ObjectMeta rules run before this (the
// registry's pipeline); this adds the CRD's own: the name rule, the spec, status.storedVersions, API approval and
// preserveUnknownFields. Structural-schema checks are plugged in (`checkSchema`). Also upstream's defaults and the
// strategy's create/update preparation (status reset, storedVersions, generation).
import { fieldInvalid, fieldRequired, type FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import { deepEqual } from '../registry/validation/common.js';
import { isDns1035Label, isDns1123Subdomain } from '../machinery/names.js';
import { maxObjectDepth } from '../machinery/depth-limits.js';
import { getOwn, hasOwn } from '../util/own.js';
import { goStrings, rec, str, versionsGo, viewOf, type CrdView, type Json } from './crd-view.js';
import {
  hasStatus, invalidGo, maxSelectableFields, validateColumn, validateConversion, validateEnum, validateNames, validateSchemaStanza,
  validateSelectableFields, validateSubresources, type Errs, type SchemaCheck,
} from './crd-validation-parts.js';

export type { SchemaCheck };

export interface CrdValidationOptions {
  /** Structural-schema checks for an openAPIV3Schema (e.g. the schema engine's checkStructural). */
  checkSchema?: SchemaCheck;
}

/** The metadata.name rule (create only): `<plural>.<group>`; also applied to generateName as upstream's name function is. */
export function crdNameErrors(crd: KObject): FieldError[] {
  const spec = rec(crd.spec);
  const required = `${str(rec(spec.names).plural)}.${str(spec.group)}`;
  const errs: FieldError[] = [];
  const meta = rec(crd.metadata);
  const msg = 'must be spec.names.plural+"."+spec.group';
  if (typeof meta.generateName === 'string' && meta.generateName !== '' && meta.generateName !== required) errs.push(fieldInvalid('metadata.generateName', meta.generateName, msg));
  if (typeof meta.name === 'string' && meta.name !== '' && meta.name !== required) errs.push(fieldInvalid('metadata.name', meta.name, msg));
  return errs;
}

/**
 * Validates a CRD (after defaultCrd and prepareCrdForCreate/Update). `old` is set on updates. Returns upstream-shaped
 * field errors; empty means valid.
 */
export function validateCrd(crd: KObject, old: KObject | undefined, opts: CrdValidationOptions = {}): FieldError[] {
  const view = viewOf(crd);
  const oldView = old ? viewOf(old) : undefined;
  const errs: Errs = [];
  if (!old) errs.push(...crdNameErrors(crd));
  errs.push(...validateSpec(view, oldView, opts));
  if (old && oldView) errs.push(...validateSpecUpdate(view, oldView, isEstablished(old)));
  errs.push(...validateCrdStatus(crd));
  errs.push(...validateStoredVersions(crd, view));
  errs.push(...validateApiApproval(crd, old));
  if (view.preserveUnknownFields && !(oldView?.preserveUnknownFields ?? false)) {
    errs.push(fieldInvalid('spec.preserveUnknownFields', true, 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'));
  }
  return errs;
}

/**
 * Validates a write of a CRD's status subresource: as upstream's ValidateUpdateCustomResourceDefinitionStatus, only
 * the accepted names (the generic ObjectMeta rules run before this). The spec is the stored one's; the stored versions
 * are not checked here, so a storage migration can drop a version from them.
 */
export function validateCrdStatus(crd: KObject): FieldError[] {
  return validateNames(rec(rec(crd.status).acceptedNames), 'status.acceptedNames');
}

function validateSpec(view: CrdView, oldView: CrdView | undefined, opts: CrdValidationOptions): Errs {
  const { spec, versions } = view;
  const errs: Errs = [];
  const group = str(spec.group);
  if (group === '') errs.push(fieldRequired('spec.group'));
  else {
    const e = isDns1123Subdomain(group);
    if (e.length) errs.push(fieldInvalid('spec.group', group, e.join(',')));
    else if (group.split('.').length < 2) errs.push(fieldInvalid('spec.group', group, 'should be a domain with at least one dot'));
  }
  errs.push(...validateEnum('spec.scope', str(spec.scope), ['Cluster', 'Namespaced']));

  // On update a schema stays optional for CRDs that were stored without one in some version.
  const requireSchema = !oldView || allVersionsHaveSchema(oldView);
  if (requireSchema && !view.validation?.openAPIV3Schema) {
    versions.forEach((v, i) => {
      if (!v.schema?.openAPIV3Schema) errs.push(fieldRequired(`spec.versions[${i}].schema.openAPIV3Schema`));
    });
  }
  if (hasDefaults(view) && view.preserveUnknownFields) {
    errs.push(fieldInvalid('spec.preserveUnknownFields', true, 'must be false in order to use defaults in the schema'));
  }

  let storage = 0;
  const names = new Set<string>();
  let unique = true;
  const tooMany = oldView ? tooManySelectableAllowed(view, oldView) : new Set<string>();
  versions.forEach((v, i) => {
    if (v.storage) storage++;
    if (names.has(v.name)) unique = false;
    else names.add(v.name);
    const e = isDns1035Label(v.name);
    if (e.length) errs.push(fieldInvalid(`spec.versions[${i}].name`, v.name, e.join(',')));
    const p = `spec.versions[${i}]`;
    const deprecated = v.raw.deprecated === true;
    const warning = v.raw.deprecationWarning;
    for (const m of deprecationWarningErrors(deprecated, warning)) errs.push(fieldInvalid(`${p}.deprecationWarning`, typeof warning === 'string' ? warning : null, m));
    const sub = view.subresources ?? v.subresources;
    errs.push(...validateSchemaStanza(v.schema, hasStatus(sub), `${p}.schema`, opts.checkSchema));
    errs.push(...validateSubresources(v.subresources, `${p}.subresources`));
    (v.columns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `${p}.additionalPrinterColumns[${j}]`)));
    if (v.selectableFields) {
      if (!v.schema?.openAPIV3Schema) {
        errs.push(fieldInvalid(`${p}.selectableFields`, '', 'may only be set when `version.schema.openAPIV3Schema` is not included'));
      } else {
        errs.push(...validateSelectableFields(v.selectableFields, rec(v.schema.openAPIV3Schema), `${p}.selectableFields`, tooMany.has(v.name)));
      }
    }
  });
  const versionsText = versionsGo(view);
  if (!unique) errs.push(invalidGo('spec.versions', versionsText, 'must contain unique version names'));
  if (storage !== 1) errs.push(invalidGo('spec.versions', versionsText, 'must have exactly one version marked as storage version'));
  // The internal spec.version is versions[0].name, so its name errors are reported twice, as upstream does.
  if (versions.length > 0 && versions[0].name !== '') {
    const e = isDns1035Label(versions[0].name);
    if (e.length) errs.push(fieldInvalid('spec.version', versions[0].name, e.join(',')));
  }

  const n = view.names;
  if (str(n.plural) === '') errs.push(fieldRequired('spec.names.plural'));
  if (str(n.singular) === '') errs.push(fieldRequired('spec.names.singular'));
  if (str(n.kind) === '') errs.push(fieldRequired('spec.names.kind'));
  if (str(n.listKind) === '') errs.push(fieldRequired('spec.names.listKind'));
  errs.push(...validateNames(n, 'spec.names'));

  const anyStatus = hasStatus(view.subresources) || versions.some((v) => hasStatus(v.subresources));
  errs.push(...validateSchemaStanza(view.validation, anyStatus, 'spec.validation', opts.checkSchema));
  errs.push(...validateSubresources(view.subresources, 'spec.subresources'));
  (view.columns ?? []).forEach((c, j) => errs.push(...validateColumn(c, `spec.additionalPrinterColumns[${j}]`)));
  if (view.selectableFields) {
    if (!view.validation) errs.push(fieldInvalid('spec.selectableFields', '', 'may only be set when validations.schema is included'));
    else errs.push(...validateSelectableFields(view.selectableFields, rec(view.validation.openAPIV3Schema), 'spec.selectableFields', tooMany.has('')));
  }

  const conversion = spec.conversion;
  const strategy = str(rec(conversion).strategy);
  if (typeof conversion === 'object' && conversion !== null && strategy !== 'None' && view.preserveUnknownFields) {
    errs.push(fieldInvalid('spec.conversion.strategy', strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  const requireRecognized = !oldView || hasRecognizedReviewVersionOrEmpty(oldView);
  errs.push(...validateConversion(conversion, requireRecognized, 'spec.conversion'));
  return errs;
}

function validateSpecUpdate(view: CrdView, oldView: CrdView, established: boolean): Errs {
  const errs: Errs = [];
  const immutable = (path: string, a: unknown, b: unknown) => {
    if (!deepEqual(a, b)) errs.push(fieldInvalid(path, a, 'field is immutable'));
  };
  if (established) {
    immutable('spec.scope', str(view.spec.scope), str(oldView.spec.scope));
    immutable('spec.names.kind', str(view.names.kind), str(oldView.names.kind));
  }
  immutable('spec.group', str(view.spec.group), str(oldView.spec.group));
  immutable('spec.names.plural', str(view.names.plural), str(oldView.names.plural));
  return errs;
}

function validateStoredVersions(crd: KObject, view: CrdView): Errs {
  const raw = rec(crd.status).storedVersions;
  const stored = Array.isArray(raw) ? raw.map(str) : undefined;
  const path = 'status.storedVersions';
  if (!stored || stored.length === 0) return [invalidGo(path, goStrings(stored), 'must have at least one stored version')];
  const errs: Errs = [];
  const index = new Map<string, number>();
  stored.forEach((v, i) => index.set(v, i));
  for (const v of view.versions) {
    const has = index.has(v.name);
    if (v.storage && !has) errs.push(invalidGo(path, goStrings(stored), `must have the storage version ${v.name}`));
    if (has) index.delete(v.name);
  }
  for (const [v, i] of index) {
    errs.push(fieldInvalid(`${path}[${i}]`, v, `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`));
  }
  return errs;
}

const approvalAnnotation = 'api-approved.kubernetes.io';

function approvalState(crd: KObject): { state: 'missing' | 'bypassed' | 'approved' | 'invalid'; reason: string; value: string } {
  const ann = rec(crd.metadata?.annotations);
  const value = str(getOwn(ann, approvalAnnotation));
  if (value === '') return { state: 'missing', value, reason: `protected groups must have approval annotation "${approvalAnnotation}", see https://github.com/kubernetes/enhancements/pull/1111` };
  if (value.startsWith('unapproved')) return { state: 'bypassed', value, reason: '' };
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#\s]+/.test(value)) return { state: 'approved', value, reason: '' };
  return { state: 'invalid', value, reason: `protected groups must have approval annotation "${approvalAnnotation}" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111` };
}

function validateApiApproval(crd: KObject, old: KObject | undefined): Errs {
  const group = str(rec(crd.spec).group);
  const protectedGroup = group === 'k8s.io' || group.endsWith('.k8s.io') || group === 'kubernetes.io' || group.endsWith('.kubernetes.io');
  if (!protectedGroup) return [];
  const now = approvalState(crd);
  if (old && approvalState(old).state === now.state) return [];
  const path = `metadata.annotations[${approvalAnnotation}]`;
  if (now.state === 'missing') return [fieldRequired(path, now.reason)];
  if (now.state === 'invalid') return [fieldInvalid(path, now.value, now.reason)];
  return [];
}

function deprecationWarningErrors(deprecated: boolean, warning: unknown): string[] {
  if (!deprecated && warning !== undefined && warning !== null) return ['can only be set for deprecated versions'];
  if (typeof warning !== 'string') return [];
  const out: string[] = [];
  if (Buffer.byteLength(warning, 'utf8') > 256) out.push('must be <= 256 characters long');
  if (warning.length === 0) out.push('must not be an empty string');
  let byte = 0;
  for (const ch of warning) {
    if (/\p{Cc}/u.test(ch)) {
      out.push(`must only contain printable UTF-8 characters; control character found at index ${byte}`);
      break;
    }
    if (!/[\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(ch)) {
      out.push(`must only contain printable UTF-8 characters; non-printable character found at index ${byte}`);
      break;
    }
    byte += Buffer.byteLength(ch, 'utf8');
  }
  return out;
}

function allVersionsHaveSchema(view: CrdView): boolean {
  if (view.validation?.openAPIV3Schema) return true;
  return view.versions.every((v) => !!v.schema?.openAPIV3Schema);
}

function hasRecognizedReviewVersionOrEmpty(view: CrdView): boolean {
  const versions = rec(rec(view.spec.conversion).webhook).conversionReviewVersions;
  if (!Array.isArray(versions) || versions.length === 0) return true;
  return versions.some((v) => v === 'v1' || v === 'v1beta1');
}

/** Versions (or '' for the lifted list) whose old selectable fields were already over the limit and did not change. */
function tooManySelectableAllowed(view: CrdView, oldView: CrdView): Set<string> {
  const out = new Set<string>();
  if ((oldView.selectableFields?.length ?? 0) > maxSelectableFields && deepEqual(view.selectableFields, oldView.selectableFields)) out.add('');
  for (const v of view.versions) {
    const o = oldView.versions.find((x) => x.name === v.name);
    const oldFields = o?.selectableFields ?? oldView.selectableFields;
    const newFields = v.selectableFields ?? view.selectableFields;
    if (o && (oldFields?.length ?? 0) > maxSelectableFields && deepEqual(newFields, oldFields)) out.add(v.name);
  }
  return out;
}

function isEstablished(crd: KObject): boolean {
  const conds = rec(crd.status).conditions;
  return Array.isArray(conds) && conds.some((c) => rec(c).type === 'Established' && rec(c).status === 'True');
}

/** Whether any schema of the CRD declares a `default` (bounded walk over the schema keywords that nest schemas). */
function hasDefaults(view: CrdView): boolean {
  const schemas = [view.validation, ...view.versions.map((v) => v.schema)].filter((s): s is Json => !!s).map((s) => s.openAPIV3Schema);
  const stack: Array<{ s: unknown; d: number }> = schemas.map((s) => ({ s, d: 0 }));
  while (stack.length > 0) {
    const { s, d } = stack.pop()!;
    if (typeof s !== 'object' || s === null || d > maxObjectDepth) continue;
    if (Array.isArray(s)) {
      for (const x of s) stack.push({ s: x, d: d + 1 });
      continue;
    }
    const r = s as Json;
    if (hasOwn(r, 'default')) return true;
    for (const k of ['items', 'allOf', 'anyOf', 'oneOf', 'not', 'additionalProperties']) if (hasOwn(r, k)) stack.push({ s: r[k], d: d + 1 });
    for (const k of ['properties', 'patternProperties', 'definitions']) if (hasOwn(r, k)) for (const v of Object.values(rec(r[k]))) stack.push({ s: v, d: d + 1 });
  }
  return false;
}
