// Upstream's ValidateStructural (apiextensions-apiserver/pkg/apiserver/schema: validation.go, complete.go): the
// invariants of a structural schema. Everything that constrains values must sit in the structural part (type,
// properties, items, additionalProperties) and value validations (allOf/anyOf/oneOf/not) may only add checks on
// fields the structural part specifies. Errors come sorted by their rendering, as upstream sorts them.
import { fieldForbidden, fieldInvalid, fieldRequired, fieldTooLong, type FieldError } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { getOwn, hasOwn } from '../../util/own.js';
import { maxSchemaDepth, schemaEntries, str, type RawSchema } from './node.js';
import { maxPatternLength, patternTooLong, regexpError } from './regexp.js';

type Level = 'root' | 'item' | 'field';
const key = (p: string, k: string) => `${p}[${k}]`;
const list = (s: RawSchema, k: string): RawSchema[] => {
  const v = getOwn(s, k);
  return Array.isArray(v) ? v.filter(isRecord) : [];
};
const rec = (s: RawSchema, k: string): RawSchema | undefined => {
  const v = getOwn(s, k);
  return isRecord(v) ? v : undefined;
};

const isType = (s: RawSchema | undefined, t: string) => !!s && str(getOwn(s, 'type')) === t && Object.keys(s).length === 1;

/** `anyOf: [{type: integer}, {type: string}]`, the shape upstream accepts beside x-kubernetes-int-or-string. */
function intOrStringAnyOf(anyOf: RawSchema[]): boolean {
  return anyOf.length === 2 && isType(anyOf[0], 'integer') && isType(anyOf[1], 'string');
}

/** Checks of a nested value validation (under allOf, anyOf, oneOf or not). */
function nested(v: RawSchema | undefined, skipAnyOf: boolean, lvl: Level, path: string, errs: FieldError[], depth: number): void {
  if (!v || depth > maxSchemaDepth) return;
  valueValidation(v, skipAnyOf, false, lvl, path, errs, depth);
  nested(rec(v, 'items'), false, lvl, `${path}.items`, errs, depth + 1);
  for (const [k, p] of schemaEntries(getOwn(v, 'properties'))) nested(p, false, 'field', key(`${path}.properties`, k), errs, depth + 1);
  if (str(getOwn(v, 'type'))) errs.push(fieldForbidden(`${path}.type`, 'must be empty to be structural'));
  if (hasOwn(v, 'additionalProperties')) errs.push(fieldForbidden(`${path}.additionalProperties`, 'must be undefined to be structural'));
  if (getOwn(v, 'default') !== undefined && getOwn(v, 'default') !== null) errs.push(fieldForbidden(`${path}.default`, 'must be undefined to be structural'));
  if (str(getOwn(v, 'title'))) errs.push(fieldForbidden(`${path}.title`, 'must be empty to be structural'));
  if (str(getOwn(v, 'description'))) errs.push(fieldForbidden(`${path}.description`, 'must be empty to be structural'));
  if (getOwn(v, 'nullable') === true) errs.push(fieldForbidden(`${path}.nullable`, 'must be false to be structural'));
  if (getOwn(v, 'externalDocs') !== undefined) errs.push(fieldForbidden(`${path}.externalDocs`, 'must be undefined to be structural'));
  if (getOwn(v, 'x-kubernetes-preserve-unknown-fields') === true) errs.push(fieldForbidden(`${path}.x-kubernetes-preserve-unknown-fields`, 'must be false to be structural'));
  if (getOwn(v, 'x-kubernetes-embedded-resource') === true) errs.push(fieldForbidden(`${path}.x-kubernetes-embedded-resource`, 'must be false to be structural'));
  if (getOwn(v, 'x-kubernetes-int-or-string') === true) errs.push(fieldForbidden(`${path}.x-kubernetes-int-or-string`, 'must be false to be structural'));
  const mapKeys = getOwn(v, 'x-kubernetes-list-map-keys');
  if (Array.isArray(mapKeys) && mapKeys.length) errs.push(fieldForbidden(`${path}.x-kubernetes-list-map-keys`, 'must be empty to be structural'));
  if (getOwn(v, 'x-kubernetes-list-type') !== undefined) errs.push(fieldForbidden(`${path}.x-kubernetes-list-type`, 'must be undefined to be structural'));
  if (getOwn(v, 'x-kubernetes-map-type') !== undefined) errs.push(fieldForbidden(`${path}.x-kubernetes-map-type`, 'must be undefined to be structural'));
  const rules = getOwn(v, 'x-kubernetes-validations');
  if (Array.isArray(rules) && rules.length) errs.push(fieldForbidden(`${path}.x-kubernetes-validations`, 'must be empty to be structural'));
  if (rec(v, 'properties') && hasOwn(rec(v, 'properties') as RawSchema, 'metadata')) {
    errs.push(fieldForbidden(key(`${path}.properties`, 'metadata'), 'must not be specified in a nested context'));
  }
}

function valueValidation(v: RawSchema, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, errs: FieldError[], depth: number): void {
  if (!skipAnyOf) list(v, 'anyOf').forEach((x, i) => nested(x, false, lvl, `${path}.anyOf[${i}]`, errs, depth + 1));
  list(v, 'allOf').forEach((x, i) => nested(x, skipFirstAllOfAnyOf && i === 0, lvl, `${path}.allOf[${i}]`, errs, depth + 1));
  list(v, 'oneOf').forEach((x, i) => nested(x, false, lvl, `${path}.oneOf[${i}]`, errs, depth + 1));
  nested(rec(v, 'not'), false, lvl, `${path}.not`, errs, depth + 1);
  const pattern = getOwn(v, 'pattern');
  if (typeof pattern === 'string' && pattern) {
    const bad = regexpError(pattern);
    if (bad === patternTooLong) errs.push(fieldTooLong(`${path}.pattern`, pattern, maxPatternLength));
    else if (bad) errs.push(fieldInvalid(`${path}.pattern`, pattern, `must be a valid regular expression, but isn't: ${bad}`));
  }
}

/** Only name and generateName may be specified under the root's metadata, and only their schemas. */
function metadataInvariants(s: RawSchema, checkMetadata: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  const type = str(getOwn(s, 'type'));
  if (checkMetadata && type !== 'object') errs.push(fieldInvalid(`${path}.type`, type, 'must be object'));
  if (lvl !== 'root') return;
  const props = rec(s, 'properties');
  const propKeys = props ? Object.keys(props) : [];
  const onlyNames = propKeys.every((k) => k === 'name' || k === 'generateName');
  const other = Object.keys(s).some((k) => {
    if (k === 'type' || k === 'default') return false;
    if (k === 'properties') return !onlyNames;
    const v = s[k];
    return v !== undefined && v !== null && v !== false && v !== '' && !(Array.isArray(v) && v.length === 0);
  });
  if (other) errs.push(fieldForbidden(path, 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
}

function invariants(s: RawSchema | undefined, lvl: Level, path: string, errs: FieldError[], depth: number): void {
  if (!s) return;
  if (depth > maxSchemaDepth) {
    errs.push(fieldForbidden(path, `must not be nested more than ${maxSchemaDepth} levels deep`));
    return;
  }
  const type = str(getOwn(s, 'type'));
  const items = rec(s, 'items');
  if (type === 'array' && !items) errs.push(fieldRequired(`${path}.items`, 'must be specified'));
  invariants(items, 'item', `${path}.items`, errs, depth + 1);
  const props = schemaEntries(getOwn(s, 'properties'));
  for (const [k, p] of props) invariants(p, 'field', key(`${path}.properties`, k), errs, depth + 1);
  const ap = getOwn(s, 'additionalProperties');
  if (ap !== undefined && ap !== null) {
    if (lvl === 'root') errs.push(fieldForbidden(`${path}.additionalProperties`, 'must not be used at the root'));
    if (isRecord(ap)) invariants(ap, 'field', `${path}.additionalProperties`, errs, depth + 1);
  }
  const intOrString = getOwn(s, 'x-kubernetes-int-or-string') === true;
  const preserve = getOwn(s, 'x-kubernetes-preserve-unknown-fields') === true;
  const embedded = getOwn(s, 'x-kubernetes-embedded-resource') === true;
  if (intOrString && preserve) errs.push(fieldInvalid(`${path}.x-kubernetes-preserve-unknown-fields`, true, 'must be false if x-kubernetes-int-or-string is true'));
  if (intOrString && embedded) errs.push(fieldInvalid(`${path}.x-kubernetes-embedded-resource`, true, 'must be false if x-kubernetes-int-or-string is true'));
  const skipAnyOf = intOrStringAnyOf(list(s, 'anyOf'));
  const allOf = list(s, 'allOf');
  const skipFirstAllOfAnyOf = allOf.length > 0 && intOrStringAnyOf(list(allOf[0], 'anyOf'));
  valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path, errs, depth);

  const checkMetadata = lvl === 'root' || embedded;
  if (embedded && type !== 'object') {
    if (!type) errs.push(fieldRequired(`${path}.type`, 'must be object if x-kubernetes-embedded-resource is true'));
    else errs.push(fieldInvalid(`${path}.type`, type, 'must be object if x-kubernetes-embedded-resource is true'));
  } else if (!type && !intOrString && !preserve) {
    const where = lvl === 'root' ? 'at the root' : lvl === 'item' ? 'for specified array items' : 'for specified object fields';
    errs.push(fieldRequired(`${path}.type`, `must not be empty ${where}`));
  }
  if (embedded && ap !== undefined && ap !== null) errs.push(fieldForbidden(`${path}.additionalProperties`, 'must not be used if x-kubernetes-embedded-resource is set'));
  if (lvl === 'root' && type && type !== 'object') errs.push(fieldInvalid(`${path}.type`, type, 'must be object at the root'));
  const propMap = rec(s, 'properties');
  for (const meta of ['kind', 'apiVersion']) {
    const p = propMap && isRecord(getOwn(propMap, meta)) ? (getOwn(propMap, meta) as RawSchema) : undefined;
    if (p && checkMetadata && str(getOwn(p, 'type')) !== 'string') {
      errs.push(fieldInvalid(`${key(`${path}.properties`, meta)}.type`, str(getOwn(p, 'type')), 'must be string'));
    }
  }
  const metadata = propMap && isRecord(getOwn(propMap, 'metadata')) ? (getOwn(propMap, 'metadata') as RawSchema) : undefined;
  if (metadata) metadataInvariants(metadata, checkMetadata, lvl, key(`${path}.properties`, 'metadata'), errs);
  if (embedded && !preserve && props.length === 0) {
    errs.push(fieldRequired(`${path}.properties`, 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'));
  }
}

/** Value validations may only reach fields the structural schema `s` specifies. */
function completeness(v: RawSchema | undefined, s: RawSchema | undefined, sPath: string, vPath: string, errs: FieldError[], depth: number): void {
  if (!v || depth > maxSchemaDepth) return;
  if (!s) {
    errs.push(fieldRequired(sPath, `because it is defined in ${vPath}`));
    return;
  }
  const junctors = (x: RawSchema) => {
    completeness(rec(x, 'not'), s, sPath, `${vPath}.not`, errs, depth + 1);
    list(x, 'allOf').forEach((y, i) => completeness(y, s, sPath, `${vPath}.allOf[${i}]`, errs, depth + 1));
    list(x, 'anyOf').forEach((y, i) => completeness(y, s, sPath, `${vPath}.anyOf[${i}]`, errs, depth + 1));
    list(x, 'oneOf').forEach((y, i) => completeness(y, s, sPath, `${vPath}.oneOf[${i}]`, errs, depth + 1));
  };
  if (depth === 0) return junctors(v);
  junctors(v);
  completeness(rec(v, 'items'), rec(s, 'items'), `${sPath}.items`, `${vPath}.items`, errs, depth + 1);
  const sProps = rec(s, 'properties');
  for (const [k, p] of schemaEntries(getOwn(v, 'properties'))) {
    const sp = sProps && isRecord(getOwn(sProps, k)) ? (getOwn(sProps, k) as RawSchema) : undefined;
    if (!sp) errs.push(fieldRequired(key(`${sPath}.properties`, k), `because it is defined in ${key(`${vPath}.properties`, k)}`));
    else completeness(p, sp, key(`${sPath}.properties`, k), key(`${vPath}.properties`, k), errs, depth + 1);
  }
}

export const renderError = (e: FieldError) => `${e.field}: ${e.message}`;

export function validateStructural(schema: RawSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  invariants(schema, 'root', path, errs, 0);
  completeness(schema, schema, path, path, errs, 0);
  return errs.sort((a, b) => (renderError(a) < renderError(b) ? -1 : renderError(a) > renderError(b) ? 1 : 0));
}
