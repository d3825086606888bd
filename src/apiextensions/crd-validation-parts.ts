// The pieces of CustomResourceDefinition validation (apiextensions-apiserver's validation.go) that check one part
// of the spec: names, printer columns, the scale subresource, selectable fields, conversion and the schema's root.
import {
  fieldDuplicate, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError,
} from '../machinery/errors.js';
import { isDns1035Label, isDns1123Subdomain, inclusiveRangeError } from '../machinery/names.js';
import { hasOwn } from '../util/own.js';
import { rec, str, goStrings, type Json } from './crd-view.js';

export type Errs = FieldError[];

/** A structural-schema check plugged in by the schema engine: errors for `schema` found under `path`. */
export type SchemaCheck = (schema: unknown, path: string) => FieldError[];

/** An Invalid error whose value is already rendered as Go prints it. */
export const invalidGo = (field: string, rendered: string, detail: string): FieldError => ({ type: 'FieldValueInvalid', field, message: `Invalid value: ${rendered}: ${detail}` });

export function validateEnum(path: string, value: string, accepted: string[]): Errs {
  if (value === '') return [fieldRequired(path)];
  return accepted.includes(value) ? [] : [fieldNotSupported(path, value, accepted)];
}

/** ValidateCustomResourceDefinitionNames (spec.names and status.acceptedNames). */
export function validateNames(names: Json, path: string): Errs {
  const errs: Errs = [];
  const plural = str(names.plural);
  const singular = str(names.singular);
  const kind = str(names.kind);
  const listKind = str(names.listKind);
  const label = (v: string, p: string) => {
    const e = isDns1035Label(v);
    if (v !== '' && e.length) errs.push(fieldInvalid(p, v, e.join(',')));
  };
  const mixed = (v: string, p: string) => {
    const e = isDns1035Label(v.toLowerCase());
    if (v !== '' && e.length) errs.push(fieldInvalid(p, v, `may have mixed case, but should otherwise match: ${e.join(',')}`));
  };
  label(plural, `${path}.plural`);
  label(singular, `${path}.singular`);
  mixed(kind, `${path}.kind`);
  mixed(listKind, `${path}.listKind`);
  const shortNames = Array.isArray(names.shortNames) ? names.shortNames : [];
  shortNames.forEach((s, i) => {
    const e = isDns1035Label(str(s));
    if (e.length) errs.push(fieldInvalid(`${path}.shortNames[${i}]`, str(s), e.join(',')));
  });
  if (kind !== '' && kind === listKind) errs.push(fieldInvalid(`${path}.listKind`, listKind, 'kind and listKind may not be the same'));
  const categories = Array.isArray(names.categories) ? names.categories : [];
  categories.forEach((c, i) => {
    const e = isDns1035Label(str(c));
    if (e.length) errs.push(fieldInvalid(`${path}.categories[${i}]`, str(c), e.join(',')));
  });
  return errs;
}

/** validateSimpleJSONPath: printer columns and scale paths must be dotted paths starting with `.`. */
export function validateSimpleJsonPath(s: string, path: string): Errs {
  if (s.length === 0) return [fieldInvalid(path, s, 'must not be empty')];
  if (s[0] !== '.') return [fieldInvalid(path, s, 'must be a simple json path starting with .')];
  return [];
}

const columnTypes = ['boolean', 'date', 'integer', 'number', 'string'];
const columnFormats = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];

/** ValidateCustomResourceColumnDefinition (note upstream's `JSONPath` field name in the path). */
export function validateColumn(c: unknown, path: string): Errs {
  const r = rec(c);
  const errs: Errs = [];
  const name = str(r.name);
  const type = str(r.type);
  const format = str(r.format);
  const jsonPath = str(r.jsonPath);
  if (name === '') errs.push(fieldRequired(`${path}.name`));
  if (type === '') errs.push(fieldRequired(`${path}.type`, `must be one of ${columnTypes.join(',')}`));
  else if (!columnTypes.includes(type)) errs.push(fieldInvalid(`${path}.type`, type, `must be one of ${columnTypes.join(',')}`));
  if (format !== '' && !columnFormats.includes(format)) errs.push(fieldInvalid(`${path}.format`, format, `must be one of ${columnFormats.join(',')}`));
  if (jsonPath === '') errs.push(fieldRequired(`${path}.JSONPath`));
  else errs.push(...validateSimpleJsonPath(jsonPath, `${path}.JSONPath`));
  return errs;
}

/** ValidateCustomResourceDefinitionSubresources: the scale paths. */
export function validateSubresources(sub: Json | undefined, path: string): Errs {
  if (!sub || !hasOwn(sub, 'scale') || !isObj(sub.scale)) return [];
  const scale = rec(sub.scale);
  const errs: Errs = [];
  const spec = str(scale.specReplicasPath);
  const status = str(scale.statusReplicasPath);
  if (spec === '') errs.push(fieldRequired(`${path}.scale.specReplicasPath`));
  else {
    const e = validateSimpleJsonPath(spec, `${path}.scale.specReplicasPath`);
    if (e.length) errs.push(...e);
    else if (!spec.startsWith('.spec.')) errs.push(fieldInvalid(`${path}.scale.specReplicasPath`, spec, 'should be a json path under .spec'));
  }
  if (status === '') errs.push(fieldRequired(`${path}.scale.statusReplicasPath`));
  else {
    const e = validateSimpleJsonPath(status, `${path}.scale.statusReplicasPath`);
    if (e.length) errs.push(...e);
    else if (!status.startsWith('.status.')) errs.push(fieldInvalid(`${path}.scale.statusReplicasPath`, status, 'should be a json path under .status'));
  }
  const label = str(scale.labelSelectorPath);
  if (label !== '') {
    const e = validateSimpleJsonPath(label, `${path}.scale.labelSelectorPath`);
    if (e.length) errs.push(...e);
    else if (!label.startsWith('.spec.') && !label.startsWith('.status.')) {
      errs.push(fieldInvalid(`${path}.scale.labelSelectorPath`, label, 'should be a json path under either .spec or .status'));
    }
  }
  return errs;
}

const isObj = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
export const hasStatus = (sub: Json | undefined): boolean => !!sub && isObj(sub.status);

// ---- selectable fields ----

export const maxSelectableFields = 8;

/** cel.ValidFieldPath without array notation: the schema a dotted path reaches, its root name and canonical text. */
function resolveFieldPath(jsonPath: string, schema: Json): { root: string; text: string; found: Json } | string {
  const tokens = jsonPath.split(/([.[\]])/).filter((t) => t !== '');
  let cur = schema;
  let text = '';
  let root = '';
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (tok === '[') return 'array notation is not allowed';
    if (tok !== '.') return `expected [ or . but got: ${tok}`;
    const name = tokens[++i];
    if (name === undefined) return 'unexpected end of JSON path';
    const props = isObj(cur.properties) ? rec(cur.properties) : undefined;
    if (props) {
      if (!hasOwn(props, name)) return 'does not refer to a valid field';
      cur = rec(props[name]);
      text = text === '' ? name : `${text}.${name}`;
    } else if (isObj(cur.additionalProperties)) {
      cur = rec(cur.additionalProperties);
      text = `${text}[${name}]`;
    } else return 'does not refer to a valid field';
    if (root === '') root = name;
  }
  return { root, text, found: cur };
}

/** ValidateCustomResourceSelectableFields against the version's (or the spec's) openAPIV3Schema. */
export function validateSelectableFields(fields: unknown[], schema: Json, path: string, allowTooMany: boolean): Errs {
  const errs: Errs = [];
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const p = `${path}[${i}].jsonPath`;
    const jsonPath = str(rec(f).jsonPath);
    if (jsonPath === '') {
      errs.push(fieldRequired(p));
      return;
    }
    const r = resolveFieldPath(jsonPath, schema);
    if (typeof r === 'string') {
      errs.push(fieldInvalid(p, jsonPath, `is an invalid path: ${r}`));
      return;
    }
    if (r.root === 'metadata') errs.push(fieldInvalid(p, jsonPath, 'must not point to fields in metadata'));
    if (!['string', 'boolean', 'integer'].includes(str(r.found.type))) {
      errs.push(fieldInvalid(p, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    if (seen.has(r.text)) errs.push(fieldDuplicate(p, jsonPath));
    else seen.add(r.text);
  });
  if (seen.size > maxSelectableFields && !allowTooMany) {
    errs.push({ type: 'FieldValueTooMany', field: path, message: `Too many: ${seen.size}: must have at most ${maxSelectableFields} items` });
  }
  return errs;
}

// ---- conversion ----

const acceptedReviewVersions = ['v1', 'v1beta1'];

function validateReviewVersions(versions: unknown, requireRecognized: boolean, path: string): Errs {
  const list = Array.isArray(versions) ? versions.map(str) : [];
  if (list.length === 0) return [fieldRequired(path)];
  const errs: Errs = [];
  const seen = new Set<string>();
  let accepted = false;
  list.forEach((v, i) => {
    if (seen.has(v)) {
      errs.push(fieldInvalid(`${path}[${i}]`, v, 'duplicate version'));
      return;
    }
    seen.add(v);
    for (const m of isDns1035Label(v)) errs.push(fieldInvalid(`${path}[${i}]`, v, m));
    if (acceptedReviewVersions.includes(v)) accepted = true;
  });
  if (requireRecognized && !accepted) errs.push(invalidGo(path, goStrings(list), `must include at least one of ${acceptedReviewVersions.join(', ')}`));
  return errs;
}

function validateWebhookUrl(raw: string, path: string): Errs {
  const form = '; desired format: https://host[/path]';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return [fieldRequired(path, `url must be a valid URL: parse ${JSON.stringify(raw)}: invalid URI for request${form}`)];
  }
  const errs: Errs = [];
  const scheme = u.protocol.replace(/:$/, '');
  if (scheme !== 'https') errs.push(fieldInvalid(path, scheme, `'https' is the only allowed URL scheme${form}`));
  if (u.host === '') errs.push(fieldInvalid(path, u.host, `host must be specified${form}`));
  if (u.username !== '' || u.password !== '') errs.push(fieldInvalid(path, u.password ? `${u.username}:${u.password}` : u.username, 'user information is not permitted in the URL'));
  if (u.hash.length > 1) errs.push(fieldInvalid(path, u.hash.slice(1), 'fragments are not permitted in the URL'));
  if (u.search.length > 1) errs.push(fieldInvalid(path, u.search.slice(1), 'query parameters are not permitted in the URL'));
  return errs;
}

function validateWebhookService(svc: Json, path: string): Errs {
  const errs: Errs = [];
  if (str(svc.name) === '') errs.push(fieldRequired(`${path}.name`));
  if (str(svc.namespace) === '') errs.push(fieldRequired(`${path}.namespace`));
  const port = typeof svc.port === 'number' ? svc.port : 443;
  if (!(port >= 1 && port <= 65535)) errs.push(fieldInvalid(`${path}.port`, port, `port is not valid: ${inclusiveRangeError(1, 65535)}`));
  if (typeof svc.path !== 'string') return errs;
  const p = svc.path;
  if (p === '/' || p === '') return errs;
  if (p === '//') return [...errs, fieldInvalid(`${path}.path`, p, 'segment[0] may not be empty')];
  if (!p.startsWith('/')) errs.push(fieldInvalid(`${path}.path`, p, "must start with a '/'"));
  let check = p.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, i) => {
    if (step === '') errs.push(fieldInvalid(`${path}.path`, p, `segment[${i}] may not be empty`));
    else for (const m of isDns1123Subdomain(step)) errs.push(fieldInvalid(`${path}.path`, p, `segment[${i}]: ${m}`));
  });
  return errs;
}

/** validateCustomResourceConversion, on the v1 `conversion` stanza with upstream's internal field names in paths. */
export function validateConversion(conversion: unknown, requireRecognized: boolean, path: string): Errs {
  if (!isObj(conversion)) return [];
  const c = rec(conversion);
  const strategy = str(c.strategy);
  const errs = validateEnum(`${path}.strategy`, strategy, ['None', 'Webhook']);
  const webhook = isObj(c.webhook) ? rec(c.webhook) : undefined;
  const clientConfig = webhook && isObj(webhook.clientConfig) ? rec(webhook.clientConfig) : undefined;
  const reviewVersions = webhook?.conversionReviewVersions;
  if (strategy === 'Webhook') {
    const ccPath = `${path}.webhookClientConfig`;
    if (!clientConfig) errs.push(fieldRequired(ccPath, 'required when strategy is set to Webhook'));
    else {
      const hasUrl = typeof clientConfig.url === 'string';
      const hasSvc = isObj(clientConfig.service);
      if (hasUrl === hasSvc) errs.push(fieldRequired(ccPath, 'exactly one of url or service is required'));
      else if (hasUrl) errs.push(...validateWebhookUrl(str(clientConfig.url), `${ccPath}.url`));
      else errs.push(...validateWebhookService(rec(clientConfig.service), `${ccPath}.service`));
    }
    errs.push(...validateReviewVersions(reviewVersions, requireRecognized, `${path}.conversionReviewVersions`));
  } else {
    if (clientConfig) errs.push(fieldForbidden(`${path}.webhookClientConfig`, 'should not be set when strategy is not set to Webhook'));
    if (Array.isArray(reviewVersions) && reviewVersions.length > 0) {
      errs.push(fieldForbidden(`${path}.conversionReviewVersions`, 'should not be set when strategy is not set to Webhook'));
    }
  }
  return errs;
}

// ---- the schema's root ----

/** JSONSchemaProps fields in Go struct order (JSON name, Go name); the root may hold only the allowed ones with status on. */
const rootFields: [string, string][] = [
  ['id', 'ID'], ['$schema', 'Schema'], ['$ref', 'Ref'], ['description', 'Description'], ['type', 'Type'], ['format', 'Format'],
  ['title', 'Title'], ['default', 'Default'], ['maximum', 'Maximum'], ['exclusiveMaximum', 'ExclusiveMaximum'], ['minimum', 'Minimum'],
  ['exclusiveMinimum', 'ExclusiveMinimum'], ['maxLength', 'MaxLength'], ['minLength', 'MinLength'], ['pattern', 'Pattern'],
  ['maxItems', 'MaxItems'], ['minItems', 'MinItems'], ['uniqueItems', 'UniqueItems'], ['multipleOf', 'MultipleOf'], ['enum', 'Enum'],
  ['maxProperties', 'MaxProperties'], ['minProperties', 'MinProperties'], ['required', 'Required'], ['items', 'Items'],
  ['allOf', 'AllOf'], ['oneOf', 'OneOf'], ['anyOf', 'AnyOf'], ['not', 'Not'], ['properties', 'Properties'],
  ['additionalProperties', 'AdditionalProperties'], ['patternProperties', 'PatternProperties'], ['dependencies', 'Dependencies'],
  ['additionalItems', 'AdditionalItems'], ['definitions', 'Definitions'], ['externalDocs', 'ExternalDocs'], ['example', 'Example'],
  ['nullable', 'Nullable'], ['x-kubernetes-preserve-unknown-fields', 'XPreserveUnknownFields'],
  ['x-kubernetes-embedded-resource', 'XEmbeddedResource'], ['x-kubernetes-int-or-string', 'XIntOrString'],
  ['x-kubernetes-list-map-keys', 'XListMapKeys'], ['x-kubernetes-list-type', 'XListType'], ['x-kubernetes-map-type', 'XMapType'],
  ['x-kubernetes-validations', 'XValidations'],
];
const allowedAtRoot = ['Description', 'Type', 'Format', 'Title', 'Maximum', 'ExclusiveMaximum', 'Minimum', 'ExclusiveMinimum', 'MaxLength', 'MinLength', 'Pattern', 'MaxItems', 'MinItems', 'UniqueItems', 'MultipleOf', 'Required', 'Items', 'Properties', 'ExternalDocs', 'Example', 'XPreserveUnknownFields', 'XValidations'];
const isZero = (v: unknown) => v === undefined || v === null || v === false || v === '' || v === 0;

/**
 * validateCustomResourceDefinitionValidation for one `schema` stanza at `path` (`spec.validation` or
 * `spec.versions[i].schema`): the root rules upstream applies itself, then the plugged-in structural checks.
 */
export function validateSchemaStanza(validation: Json | undefined, statusEnabled: boolean, path: string, checkSchema: SchemaCheck | undefined): Errs {
  if (!validation || !isObj(validation.openAPIV3Schema)) return [];
  const schema = rec(validation.openAPIV3Schema);
  const errs: Errs = [];
  if (statusEnabled) {
    for (const [json, goName] of rootFields) {
      if (!hasOwn(schema, json) || isZero(schema[json])) continue;
      if (goName === 'Type') {
        if (schema.type !== 'object') {
          errs.push(fieldInvalid(`${path}.openAPIV3Schema.type`, str(schema.type), 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled'));
          break;
        }
        continue;
      }
      if (!allowedAtRoot.includes(goName)) {
        errs.push(invalidGo(`${path}.openAPIV3Schema`, 'apiextensions.JSONSchemaProps{...}', `only [${allowedAtRoot.join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`));
        break;
      }
    }
  }
  if (schema.nullable === true) errs.push(fieldForbidden(`${path}.openAPIV3Schema.nullable`, 'nullable cannot be true at the root'));
  if (checkSchema) errs.push(...checkSchema(schema, `${path}.openAPIV3Schema`));
  return errs;
}
