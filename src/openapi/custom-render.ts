// Renders custom resources as OpenAPI: one v3 document per group-version (as kube-apiserver serves at
// /openapi/v3/apis/<group>/<version>), and the definitions and paths they add to the merged v2 document.
import type { OpenApiDocument, OpenApiSchema } from './schema-types.js';
import type { CustomResourceSpec, CustomResourceVersion } from './custom-types.js';
import { definitionName } from './custom-types.js';
import { customRoutes, fixedParameter, META, SCALE, splitParameters, typeName, type Route, type V3Parameter } from './custom-operations.js';
import { kindSchema, listSchema, refPrefix, type Flavor } from './custom-schema.js';
import { metaTexts, optionParameter, staticClosure } from './custom-static.js';
import { setOwn } from '../util/own.js';

/** One served version of one custom resource. */
export interface Published {
  spec: CustomResourceSpec;
  version: CustomResourceVersion;
}

const PRODUCES = ['application/json', 'application/yaml'];

const param = (name: string, kind: string): V3Parameter | undefined => fixedParameter(name, kind) ?? optionParameter(name);

const byKey = <T>(entries: Array<[string, T]>): Record<string, T> => {
  const out: Record<string, T> = {};
  for (const [k, v] of entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) setOwn(out, k, v);
  return out;
};

function gvkOf(r: Route, spec: CustomResourceSpec) {
  return { group: spec.group, kind: r.kind, version: r.version };
}

function v3Operation(p: Published, r: Route, params: V3Parameter[]): Record<string, unknown> {
  const ref = (t: Parameters<typeof typeName>[2]) => ({ $ref: `${refPrefix('v3')}${typeName(p.spec, r.version, t)}` });
  const responses: Record<string, unknown> = {};
  for (const [code, text, t] of r.responses) {
    const content: Record<string, unknown> = {};
    for (const mt of PRODUCES) content[mt] = { schema: ref(t) };
    responses[code] = { content, description: text };
  }
  responses['401'] = { description: 'Unauthorized' };
  const op: Record<string, unknown> = { description: r.description, operationId: r.operationId };
  if (params.length) op.parameters = params;
  if (r.body) {
    const content: Record<string, unknown> = {};
    for (const mt of r.body.consumes) content[mt] = { schema: ref(r.body.type) };
    op.requestBody = r.body.required ? { content, required: true } : { content };
  }
  op.responses = responses;
  op.tags = [r.tag];
  op['x-kubernetes-action'] = r.action;
  op['x-kubernetes-group-version-kind'] = gvkOf(r, p.spec);
  return op;
}

function v2Parameter(p: V3Parameter): Record<string, unknown> {
  const out: Record<string, unknown> = { description: p.description, in: p.in, name: p.name };
  if (p.required) out.required = true;
  out.type = p.schema?.type ?? 'string';
  out.uniqueItems = true;
  return out;
}

function v2Operation(p: Published, r: Route, params: V3Parameter[]): Record<string, unknown> {
  const ref = (t: Parameters<typeof typeName>[2]) => ({ $ref: `${refPrefix('v2')}${typeName(p.spec, r.version, t)}` });
  const responses: Record<string, unknown> = {};
  for (const [code, text, t] of r.responses) responses[code] = { description: text, schema: ref(t) };
  responses['401'] = { description: 'Unauthorized' };
  const parameters: unknown[] = [];
  if (r.body) parameters.push(r.body.required ? { in: 'body', name: 'body', required: true, schema: ref(r.body.type) } : { in: 'body', name: 'body', schema: ref(r.body.type) });
  parameters.push(...params.map(v2Parameter));
  const op: Record<string, unknown> = { consumes: r.body?.consumes ?? ['application/json', 'application/yaml'], description: r.description, operationId: r.operationId };
  if (parameters.length) op.parameters = parameters;
  op.produces = PRODUCES;
  op.responses = responses;
  op.schemes = ['https'];
  op.tags = [r.tag];
  op['x-kubernetes-action'] = r.action;
  op['x-kubernetes-group-version-kind'] = gvkOf(r, p.spec);
  return op;
}

/** Path items of every published entry, in the given flavor. */
function paths(entries: Published[], f: Flavor): Record<string, unknown> {
  const items: Array<[string, unknown]> = [];
  for (const p of entries) {
    for (const [path, { common, ops }] of splitParameters(customRoutes(p.spec, p.version.name), param)) {
      const item: Record<string, unknown> = {};
      for (const { route, params } of ops) item[route.method] = f === 'v3' ? v3Operation(p, route, params) : v2Operation(p, route, params);
      item.parameters = f === 'v3' ? common : common.map(v2Parameter);
      items.push([path, item]);
    }
  }
  return byKey(items);
}

/** Kind and list definitions of every published entry, in the given flavor. */
function definitions(entries: Published[], f: Flavor): Array<[string, OpenApiSchema]> {
  const texts = metaTexts();
  const out: Array<[string, OpenApiSchema]> = [];
  for (const { spec, version } of entries) {
    out.push([definitionName(spec.group, version.name, spec.kind), kindSchema(spec, version.name, version.schema, version.schemaV2, f, texts)]);
    out.push([definitionName(spec.group, version.name, spec.listKind), listSchema(spec, version.name, f, texts)]);
  }
  return out;
}

/** The v3 document of one group-version: its custom resources, their operations, the metav1 types they use. */
export function buildV3Document(entries: Published[]): OpenApiDocument {
  const roots = ['ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'Patch'].map((t) => `${META}.${t}`);
  if (entries.some((p) => p.spec.subresources?.scale)) roots.push(SCALE);
  const schemas: Array<[string, OpenApiSchema]> = [...staticClosure(roots)];
  schemas.push(...definitions(entries, 'v3'));
  return {
    openapi: '3.0.0',
    info: { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' },
    paths: paths(entries, 'v3') as OpenApiDocument['paths'],
    components: { schemas: byKey(schemas) },
  } as OpenApiDocument;
}

/** What the custom resources add to the merged v2 document (its metav1 definitions are already there). */
export function buildV2Parts(entries: Published[]): { definitions: Record<string, OpenApiSchema>; paths: Record<string, unknown> } {
  return { definitions: byKey(definitions(entries, 'v2')), paths: paths(entries, 'v2') };
}
