// A custom resource's kind and list schemas as apiextensions-apiserver publishes them: the version's schema
// with apiVersion, kind and metadata set, embedded resources given the same, and the group-version-kind
// extension; for OpenAPI v2, the schema first reduced to what kubectl's v2 validation copes with.
import type { OpenApiSchema } from './schema-types.js';
import { cloneSchema, definitionName, type CustomResourceSpec } from './custom-types.js';
import { META } from './custom-operations.js';
import { getOwn, hasOwn, setOwn } from '../util/own.js';

/** Texts taken from the static documents (TypeMeta properties, the metadata descriptions). */
export interface MetaTexts {
  apiVersion: OpenApiSchema;
  kind: OpenApiSchema;
  objectMeta: string;
  listMeta: string;
}

export type Flavor = 'v2' | 'v3';
export const refPrefix = (f: Flavor) => (f === 'v2' ? '#/definitions/' : '#/components/schemas/');

const GVK = 'x-kubernetes-group-version-kind';
const PRESERVE = 'x-kubernetes-preserve-unknown-fields';
const EMBEDDED_API_VERSION = 'apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const EMBEDDED_KIND = 'kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

const isSchema = (v: unknown): v is OpenApiSchema => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The children a schema walk visits: property schemas, items, additionalProperties. */
function children(s: OpenApiSchema): OpenApiSchema[] {
  const out: OpenApiSchema[] = [];
  const props = getOwn(s, 'properties');
  if (isSchema(props)) for (const k of Object.keys(props)) {
    const c = getOwn(props, k);
    if (isSchema(c)) out.push(c);
  }
  for (const key of ['items', 'additionalProperties']) {
    const c = getOwn(s, key);
    if (isSchema(c)) out.push(c);
  }
  return out;
}

/**
 * The fallback v2 conversion (the published one comes with the spec): drops what OpenAPI v2 or kubectl's
 * v2 validation cannot express: allOf/oneOf/anyOf/not, CEL rules, nullable (untyping the field), the
 * structure under x-kubernetes-preserve-unknown-fields, arrays without items. Mutates the copy in place.
 */
export function toV2InPlace(s: OpenApiSchema, depth = 0): void {
  if (depth > 512) return;
  for (const k of ['allOf', 'oneOf', 'anyOf', 'not', 'x-kubernetes-validations']) delete s[k];
  if (getOwn(s, 'nullable') === true) {
    delete s.type;
    delete s.items;
    delete s.properties;
  }
  delete s.nullable;
  if (getOwn(s, PRESERVE) === true) {
    delete s.items;
    delete s.properties;
  }
  if (s.type === 'array' && !isSchema(getOwn(s, 'items'))) delete s.type;
  const props = getOwn(s, 'properties');
  const req = getOwn(s, 'required');
  if (isSchema(props) && Array.isArray(req)) {
    const kept = req.filter((f) => !(typeof f === 'string' && hasOwn(props, f) && getOwn(getOwn(props, f) as object, 'nullable') === true));
    if (kept.length) s.required = kept as string[];
    else delete s.required;
  }
  for (const c of children(s)) toV2InPlace(c, depth + 1);
}

function withProperty(s: OpenApiSchema, name: string, value: OpenApiSchema): void {
  const props = isSchema(getOwn(s, 'properties')) ? (s.properties as Record<string, OpenApiSchema>) : {};
  setOwn(props, name, value);
  s.properties = props;
}

const metaRef = (f: Flavor, type: string, description: string): OpenApiSchema => ({ $ref: `${refPrefix(f)}${META}.${type}`, description });

/** Gives every x-kubernetes-embedded-resource object apiVersion, kind and metadata, as upstream does. */
function addEmbedded(s: OpenApiSchema, f: Flavor, texts: MetaTexts, depth = 0): void {
  if (depth > 512) return;
  for (const c of children(s)) addEmbedded(c, f, texts, depth + 1);
  if (f === 'v2' && getOwn(s, PRESERVE) === true) return;
  if (getOwn(s, 'x-kubernetes-embedded-resource') !== true) return;
  withProperty(s, 'apiVersion', { ...texts.apiVersion, description: EMBEDDED_API_VERSION });
  withProperty(s, 'kind', { ...texts.kind, description: EMBEDDED_KIND });
  withProperty(s, 'metadata', metaRef(f, 'ObjectMeta', texts.objectMeta));
  const req = Array.isArray(getOwn(s, 'required')) ? (s.required as unknown[]).filter((x): x is string => typeof x === 'string') : [];
  for (const r of ['kind', 'apiVersion']) if (!req.includes(r)) req.push(r);
  s.required = req;
}

/** The published schema of `spec`'s kind in `version` (a fresh copy). */
export function kindSchema(spec: CustomResourceSpec, version: string, raw: unknown, rawV2: unknown, f: Flavor, texts: MetaTexts): OpenApiSchema {
  const gvk = [{ group: spec.group, version, kind: spec.kind }];
  let s = cloneSchema(f === 'v2' && rawV2 !== undefined ? rawV2 : raw);
  if (s && f === 'v2' && (getOwn(s, PRESERVE) === true || spec.preserveUnknownFields)) s = undefined;
  if (!s) return { type: 'object', [GVK]: gvk };
  if (f === 'v2' && rawV2 === undefined) toV2InPlace(s);
  withProperty(s, 'metadata', metaRef(f, 'ObjectMeta', texts.objectMeta));
  withProperty(s, 'apiVersion', { ...texts.apiVersion });
  withProperty(s, 'kind', { ...texts.kind });
  addEmbedded(s, f, texts);
  setOwn(s, GVK, gvk);
  return s;
}

/** The `<Kind>List` schema. */
export function listSchema(spec: CustomResourceSpec, version: string, f: Flavor, texts: MetaTexts): OpenApiSchema {
  return {
    description: `${spec.listKind} is a list of ${spec.kind}`,
    properties: {
      apiVersion: { ...texts.apiVersion },
      items: {
        description: `List of ${spec.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`,
        items: { $ref: `${refPrefix(f)}${definitionName(spec.group, version, spec.kind)}` },
        type: 'array',
      },
      kind: { ...texts.kind },
      metadata: metaRef(f, 'ListMeta', texts.listMeta),
    },
    required: ['items'],
    [GVK]: [{ group: spec.group, version, kind: spec.listKind }],
  };
}
