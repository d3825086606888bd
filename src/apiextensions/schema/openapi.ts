// A CRD version's schema as kube-apiserver publishes it (apiextensions' openapi builder): OpenAPI v3 keeps the
// structural schema (int-or-string unfolded into anyOf integer/string), v2 drops what swagger 2.0 cannot say
// (allOf/anyOf/oneOf/not, nullable, fields below x-kubernetes-preserve-unknown-fields). Both add apiVersion, kind and
// a reference to ObjectMeta for metadata, at the root and in every embedded resource, and the GVK extension.
import { isRecord } from '../../machinery/types.js';
import { getOwn, setOwn } from '../../util/own.js';
import { deepCopy, maxSchemaDepth, schemaEntries, type RawSchema } from './node.js';

export interface Gvk { group: string; version: string; kind: string }

const apiVersionSchema = {
  description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
  type: 'string',
};
const kindSchema = {
  description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
  type: 'string',
};
const embeddedApiVersion = 'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const embeddedKind = 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const metadataDescription = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const objectMeta = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

const metadataRef = (v2: boolean) => (v2
  ? { $ref: `#/definitions/${objectMeta}`, description: metadataDescription }
  : { allOf: [{ $ref: `#/components/schemas/${objectMeta}` }], description: metadataDescription });

/** Keys a structural schema keeps when published (others, like id or definitions, upstream never converts). */
const scalarKeys = ['type', 'format', 'description', 'title', 'default', 'example', 'externalDocs', 'nullable', 'maximum', 'exclusiveMaximum',
  'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum',
  'maxProperties', 'minProperties', 'required', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource',
  'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type', 'x-kubernetes-map-type', 'x-kubernetes-validations'];
const junctors = ['allOf', 'anyOf', 'oneOf'];

const isIntOrStringPair = (v: unknown) => Array.isArray(v) && v.length === 2 && isRecord(v[0]) && isRecord(v[1]) && v[0].type === 'integer' && v[1].type === 'string';

function convert(s: RawSchema, v2: boolean, depth: number): RawSchema {
  const out: RawSchema = {};
  for (const k of scalarKeys) {
    const v = getOwn(s, k);
    if (v !== undefined && v !== null && v !== false && !(k === 'x-kubernetes-preserve-unknown-fields' && v !== true)) setOwn(out, k, deepCopy(v));
  }
  if (depth >= maxSchemaDepth) return out;
  const props = getOwn(s, 'properties');
  if (isRecord(props)) {
    const p: RawSchema = {};
    for (const [k, x] of schemaEntries(props)) setOwn(p, k, convert(x, v2, depth + 1));
    out.properties = p;
  }
  const items = getOwn(s, 'items');
  if (isRecord(items)) out.items = convert(items, v2, depth + 1);
  const ap = getOwn(s, 'additionalProperties');
  if (typeof ap === 'boolean') out.additionalProperties = ap;
  else if (isRecord(ap)) out.additionalProperties = convert(ap, v2, depth + 1);
  if (!v2) {
    for (const j of junctors) {
      const list = getOwn(s, j);
      if (Array.isArray(list) && list.length) out[j] = list.filter(isRecord).map((x) => convert(x, v2, depth + 1));
    }
    const not = getOwn(s, 'not');
    if (isRecord(not)) out.not = convert(not, v2, depth + 1);
    // Unfold: int-or-string is spelt out as anyOf integer/string unless the schema already says so.
    if (getOwn(s, 'x-kubernetes-int-or-string') === true) {
      const allOf = out.allOf as RawSchema[] | undefined;
      if (!isIntOrStringPair(out.anyOf) && !(allOf?.length && isIntOrStringPair(allOf[0].anyOf))) {
        const pair = [{ type: 'integer' }, { type: 'string' }];
        if (out.anyOf === undefined) out.anyOf = pair;
        else out.allOf = [{ anyOf: pair }, ...(allOf ?? [])];
      }
    }
    return out;
  }
  // Swagger 2.0 (ToStructuralOpenAPIV2).
  const preserve = out['x-kubernetes-preserve-unknown-fields'] === true;
  if (out.nullable === true) {
    delete out.type;
    delete out.nullable;
    delete out.items;
    delete out.properties;
  }
  if (preserve) {
    delete out.items;
    delete out.properties;
  }
  if (out.items === undefined && out.type === 'array') delete out.type;
  if (preserve && out.type === 'object') delete out.type;
  const outProps = out.properties as RawSchema | undefined;
  if (Array.isArray(out.required) && outProps) {
    const nullableProps = new Set(schemaEntries(props).filter(([, x]) => getOwn(x, 'nullable') === true).map(([k]) => k));
    const req = (out.required as unknown[]).filter((r) => !(typeof r === 'string' && nullableProps.has(r)));
    if (req.length) out.required = req;
    else delete out.required;
  }
  if (isRecord(ap) && getOwn(ap, 'nullable') === true) delete out.required;
  return out;
}

/** apiVersion, kind and metadata in every embedded resource (not below preserve-unknown-fields in v2). */
function addEmbedded(s: RawSchema, v2: boolean, depth: number): void {
  if (depth > maxSchemaDepth) return;
  for (const [, p] of schemaEntries(s.properties)) addEmbedded(p, v2, depth + 1);
  if (isRecord(s.items)) addEmbedded(s.items, v2, depth + 1);
  if (isRecord(s.additionalProperties)) addEmbedded(s.additionalProperties, v2, depth + 1);
  if (v2 && s['x-kubernetes-preserve-unknown-fields'] === true) return;
  if (s['x-kubernetes-embedded-resource'] !== true) return;
  const props = (isRecord(s.properties) ? s.properties : (s.properties = {})) as RawSchema;
  props.apiVersion = { ...apiVersionSchema, description: embeddedApiVersion };
  props.kind = { ...kindSchema, description: embeddedKind };
  props.metadata = metadataRef(v2);
  const req = Array.isArray(s.required) ? [...(s.required as unknown[])] : [];
  if (!req.includes('kind')) req.push('kind');
  if (!req.includes('apiVersion')) req.push('apiVersion');
  s.required = req;
}

function publish(schema: RawSchema | undefined, v2: boolean, gvk?: Gvk): RawSchema {
  let out: RawSchema;
  if (!schema) out = { type: 'object' };
  else if (v2 && getOwn(schema, 'x-kubernetes-preserve-unknown-fields') === true) out = { type: 'object' };
  else {
    out = convert(schema, v2, 0);
    const props = (isRecord(out.properties) ? out.properties : (out.properties = {})) as RawSchema;
    props.metadata = metadataRef(v2);
    props.apiVersion = { ...apiVersionSchema };
    props.kind = { ...kindSchema };
    addEmbedded(out, v2, 0);
  }
  if (gvk) out['x-kubernetes-group-version-kind'] = [{ group: gvk.group, kind: gvk.kind, version: gvk.version }];
  return out;
}

/** The schema of the kind in the CRD's OpenAPI v3 document (`/openapi/v3/apis/<group>/<version>`). */
export const toOpenApiV3 = (schema: RawSchema | undefined, gvk?: Gvk): RawSchema => publish(schema, false, gvk);
/** The schema of the kind in the swagger 2.0 document (`/openapi/v2`). */
export const toOpenApiV2 = (schema: RawSchema | undefined, gvk?: Gvk): RawSchema => publish(schema, true, gvk);
