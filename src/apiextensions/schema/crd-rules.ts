// The schema rules of CRD validation (upstream's ValidateCustomResourceDefinitionOpenAPISchema and its
// specStandardValidatorV3): forbidden keywords, x-kubernetes-* consistency, defaults where pruning could not apply
// them. CEL rules (x-kubernetes-validations) are checked elsewhere.
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from '../../machinery/errors.js';
import { isRecord } from '../../machinery/types.js';
import { getOwn, hasOwn } from '../../util/own.js';
import { maxSchemaDepth, schemaEntries, str, type RawSchema } from './node.js';

interface Ctx {
  /** Why defaults are refused here (undefined: they are allowed). */
  noDefaults?: string;
  insideResourceMeta: boolean;
}

const openapiV3Types = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const metaFields = new Set(['metadata', 'kind', 'apiVersion']);
const key = (p: string, k: string) => `${p}[${k}]`;
const present = (s: RawSchema, k: string) => hasOwn(s, k) && getOwn(s, k) !== undefined && getOwn(s, k) !== null;

function standard(s: RawSchema, path: string, ctx: Ctx, errs: FieldError[]): void {
  const type = str(getOwn(s, 'type'));
  if (type && !openapiV3Types.includes(type) && type !== 'null') errs.push(fieldNotSupported(`${path}.type`, type, openapiV3Types));
  if (present(s, 'default') && ctx.noDefaults !== undefined) errs.push(fieldForbidden(`${path}.default`, `must not be set${ctx.noDefaults ? ` ${ctx.noDefaults}` : ''}`));
  if (str(getOwn(s, 'id'))) errs.push(fieldForbidden(`${path}.id`, 'id is not supported'));
  if (present(s, 'additionalItems')) errs.push(fieldForbidden(`${path}.additionalItems`, 'additionalItems is not supported'));
  if (isRecord(getOwn(s, 'patternProperties')) && Object.keys(getOwn(s, 'patternProperties') as object).length) errs.push(fieldForbidden(`${path}.patternProperties`, 'patternProperties is not supported'));
  if (isRecord(getOwn(s, 'definitions')) && Object.keys(getOwn(s, 'definitions') as object).length) errs.push(fieldForbidden(`${path}.definitions`, 'definitions is not supported'));
  if (present(s, 'dependencies')) errs.push(fieldForbidden(`${path}.dependencies`, 'dependencies is not supported'));
  if (present(s, '$ref')) errs.push(fieldForbidden(`${path}.$ref`, '$ref is not supported'));
  if (type === 'null') errs.push(fieldForbidden(`${path}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(getOwn(s, 'items')) && (getOwn(s, 'items') as unknown[]).length) errs.push(fieldForbidden(`${path}.items`, 'items must be a schema object and not an array'));
  if (ctx.insideResourceMeta && getOwn(s, 'x-kubernetes-embedded-resource') === true) {
    errs.push(fieldForbidden(`${path}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }
}

function listChecks(s: RawSchema, path: string, errs: FieldError[]): void {
  const type = str(getOwn(s, 'type'));
  const listType = getOwn(s, 'x-kubernetes-list-type');
  const mapType = getOwn(s, 'x-kubernetes-map-type');
  const keysRaw = getOwn(s, 'x-kubernetes-list-map-keys');
  const keys = Array.isArray(keysRaw) ? keysRaw : [];
  const items = getOwn(s, 'items');
  const itemSchema = isRecord(items) ? items : undefined;
  if (getOwn(s, 'x-kubernetes-preserve-unknown-fields') === false) {
    errs.push(fieldInvalid(`${path}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  if (mapType !== undefined && type !== 'object') {
    if (!type) errs.push(fieldRequired(`${path}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(fieldInvalid(`${path}.type`, type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(fieldNotSupported(`${path}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  if (listType !== undefined && type !== 'array') {
    if (!type) errs.push(fieldRequired(`${path}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(fieldInvalid(`${path}.type`, type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && itemSchema) {
    const it = str(getOwn(itemSchema, 'type'));
    const itemList = getOwn(itemSchema, 'x-kubernetes-list-type');
    if (it === 'array' && itemList !== undefined && itemList !== 'atomic') {
      errs.push(fieldInvalid(`${path}.items.x-kubernetes-list-type`, itemList, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (it === 'object' && getOwn(itemSchema, 'x-kubernetes-map-type') !== 'atomic') {
      errs.push(fieldInvalid(`${path}.items.x-kubernetes-map-type`, itemList ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') {
    errs.push(fieldNotSupported(`${path}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  }
  if (keys.length) {
    if (listType === undefined) errs.push(fieldRequired(`${path}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(fieldInvalid(`${path}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (!keys.length) errs.push(fieldRequired(`${path}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (items === undefined || items === null) errs.push(fieldRequired(`${path}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    else if (!itemSchema) errs.push(fieldInvalid(`${path}.items`, items, 'must only have a single schema if x-kubernetes-list-type is map'));
    else {
      const it = str(getOwn(itemSchema, 'type'));
      if (it !== 'object') errs.push(fieldInvalid(`${path}.items.type`, it, 'must be object if parent array\'s x-kubernetes-list-type is map'));
      else {
        const props = getOwn(itemSchema, 'properties');
        const seen = new Set<unknown>();
        for (const k of keys) {
          const p = isRecord(props) && typeof k === 'string' ? getOwn(props, k) : undefined;
          if (isRecord(p)) {
            const pt = str(getOwn(p, 'type'));
            if (pt === 'array' || pt === 'object') errs.push(fieldInvalid(`${key(`${path}.items.properties`, String(k))}.type`, it, 'must be a scalar type if parent array\'s x-kubernetes-list-type is map'));
          } else errs.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, keys, 'entries must all be names of item properties'));
          if (seen.has(k)) errs.push(fieldInvalid(`${path}.x-kubernetes-list-map-keys`, keys, 'must not contain duplicate entries'));
          seen.add(k);
        }
      }
    }
  }
  // validateMapListKeysMapSet: items of set and map lists are not nullable, map keys are required or defaulted.
  if (itemSchema && (listType === 'set' || listType === 'map')) {
    if (getOwn(itemSchema, 'nullable') === true) errs.push(fieldForbidden(`${path}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${String(listType)}`));
    if (listType === 'map') {
      const req = getOwn(itemSchema, 'required');
      const required = new Set(Array.isArray(req) ? req : []);
      const props = getOwn(itemSchema, 'properties');
      for (const k of keys) {
        const p = isRecord(props) && typeof k === 'string' ? getOwn(props, k) : undefined;
        if (!isRecord(p)) continue;
        const at = key(`${path}.items.properties`, String(k));
        if (!required.has(k) && !present(p, 'default')) errs.push(fieldRequired(`${at}.default`, 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        if (getOwn(p, 'nullable') === true) errs.push(fieldForbidden(`${at}.nullable`, 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
}

function walk(s: RawSchema | undefined, path: string, ctx: Ctx, isRoot: boolean, errs: FieldError[], depth: number): void {
  if (!s || depth > maxSchemaDepth) return;
  standard(s, path, ctx, errs);
  if (getOwn(s, 'uniqueItems') === true) errs.push(fieldForbidden(`${path}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  const ap = getOwn(s, 'additionalProperties');
  const props = schemaEntries(getOwn(s, 'properties'));
  if (ap !== undefined && ap !== null) {
    if (props.length && (ap === false || isRecord(ap))) errs.push(fieldForbidden(`${path}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    const sub = ctx.insideResourceMeta ? { ...ctx, noDefaults: 'inside additionalProperties applying to object metadata' } : ctx;
    if (isRecord(ap)) walk(ap, `${path}.additionalProperties`, sub, false, errs, depth + 1);
  }
  const embedded = getOwn(s, 'x-kubernetes-embedded-resource') === true;
  for (const [k, p] of props) {
    let sub = ctx;
    if ((isRoot || embedded) && metaFields.has(k)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, noDefaults: `in top-level ${k}` };
    }
    walk(p, key(`${path}.properties`, k), sub, false, errs, depth + 1);
  }
  const not = getOwn(s, 'not');
  if (isRecord(not)) walk(not, `${path}.not`, ctx, false, errs, depth + 1);
  for (const j of ['allOf', 'oneOf', 'anyOf']) {
    const list = getOwn(s, j);
    if (Array.isArray(list)) list.forEach((x, i) => isRecord(x) && walk(x, `${path}.${j}[${i}]`, ctx, false, errs, depth + 1));
  }
  for (const [k, d] of schemaEntries(getOwn(s, 'definitions'))) walk(d, key(`${path}.definitions`, k), ctx, false, errs, depth + 1);
  const items = getOwn(s, 'items');
  if (isRecord(items)) walk(items, `${path}.items`, ctx, false, errs, depth + 1);
  else if (Array.isArray(items)) items.forEach((x, i) => isRecord(x) && walk(x, `${path}.items[${i}]`, ctx, false, errs, depth + 1));
  listChecks(s, path, errs);
}

/** CRD validation's rules for one version's openAPIV3Schema at `path` (`spec.versions[0].schema.openAPIV3Schema`). */
export function validateCrdSchemaRules(schema: RawSchema, path: string): FieldError[] {
  const errs: FieldError[] = [];
  walk(schema, path, { insideResourceMeta: false }, true, errs, 0);
  return errs;
}
