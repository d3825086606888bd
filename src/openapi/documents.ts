// The upstream OpenAPI documents in openapi/ (loaded lazily per group-version, indexed by GVK), merged with
// the published custom resources (custom-store.ts) where those add kinds.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { openapiDir, projectRoot } from '../util/paths.js';
import type { GroupVersionKind } from '../machinery/types.js';
import { spliceV2 } from './custom-v2-merge.js';
import type { OpenApiDocument, OpenApiSchema } from './schema-types.js';

export type { OpenApiDocument, OpenApiSchema };

/** What the documents read of a server's published custom resources (custom-store.ts's CustomOpenApiStore). */
export interface CustomDocuments {
  v3Paths(): string[];
  v3Document(urlPath: string): { bytes: Buffer; hash: string } | undefined;
  v2Parts(): Parameters<typeof spliceV2>[1] | undefined;
  currentGeneration(): number;
  /** The v2 document merged with the custom resources, kept by the store until the next change. */
  v2Merged: { generation: number; bytes: Buffer } | undefined;
  schemaForKind(gvk: GroupVersionKind): { schema: OpenApiSchema; doc: OpenApiDocument } | undefined;
}


const v3Dir = join(openapiDir, 'v3');

/** `/openapi/v3/<urlPath>` ↔ `v3/<urlPath with / as __>_openapi.json`: the static documents. */
export function listV3Paths(): string[] {
  return readdirSync(v3Dir)
    .filter((f) => f.endsWith('_openapi.json'))
    .map((f) => f.slice(0, -'_openapi.json'.length).split('__').join('/'));
}

/** `apis/<group>/<version>` of the served custom resource group-versions (they follow publishing). */
export function listCustomV3Paths(custom: CustomDocuments): string[] {
  return custom.v3Paths();
}

const rawCache = new Map<string, Buffer>();
function staticV3Bytes(urlPath: string): Buffer | undefined {
  let b = rawCache.get(urlPath);
  if (b) return b;
  try {
    b = readFileSync(join(v3Dir, `${urlPath.split('/').join('__')}_openapi.json`));
  } catch {
    return undefined;
  }
  rawCache.set(urlPath, b);
  return b;
}

/** Raw bytes of the v3 document served at /openapi/v3/<urlPath> (a custom group-version first), or undefined. */
export function v3DocumentBytes(custom: CustomDocuments, urlPath: string): Buffer | undefined {
  return custom.v3Document(urlPath)?.bytes ?? staticV3Bytes(urlPath);
}

const hashCache = new Map<string, string>();
export function v3DocumentHash(custom: CustomDocuments, urlPath: string): string | undefined {
  const built = custom.v3Document(urlPath);
  if (built) return built.hash;
  let h = hashCache.get(urlPath);
  if (h) return h;
  const b = staticV3Bytes(urlPath);
  if (!b) return undefined;
  h = createHash('sha512').update(b).digest('hex').slice(0, 128).toUpperCase();
  hashCache.set(urlPath, h);
  return h;
}

let v2Static: Buffer | undefined;
/**
 * The v2 document: openapi/swagger.json (read once, on first use), plus the server's published custom resources'
 * definitions and paths (merged on first use after a change; the same Buffer until the next change).
 */
export function v2DocumentBytes(custom: CustomDocuments): Buffer {
  v2Static ??= readFileSync(join(openapiDir, 'swagger.json'));
  const parts = custom.v2Parts();
  if (!parts) return v2Static;
  const generation = custom.currentGeneration();
  if (custom.v2Merged?.generation !== generation) custom.v2Merged = { generation, bytes: spliceV2(v2Static, parts) };
  return custom.v2Merged.bytes;
}

const parsed = new Map<string, OpenApiDocument>();
/** A static upstream v3 document, parsed once (never mutate it). */
export function staticV3Document(urlPath: string): OpenApiDocument | undefined {
  let d = parsed.get(urlPath);
  if (d) return d;
  const b = staticV3Bytes(urlPath);
  if (!b) return undefined;
  d = JSON.parse(b.toString('utf8')) as OpenApiDocument;
  parsed.set(urlPath, d);
  return d;
}

const schemasDir = join(projectRoot, 'dist', 'openapi-schemas');
const schemaDocs = new Map<string, OpenApiDocument | undefined>();
/**
 * A static document's component schemas without descriptions, as scripts/gen-openapi-schemas.mjs writes them at
 * build time (a fraction of the document to parse); the whole document when the build has not written them.
 */
function staticV3Schemas(urlPath: string): OpenApiDocument | undefined {
  if (schemaDocs.has(urlPath)) return schemaDocs.get(urlPath);
  let d: OpenApiDocument | undefined;
  try {
    d = JSON.parse(readFileSync(join(schemasDir, `${urlPath.split('/').join('__')}_openapi.json`), 'utf8')) as OpenApiDocument;
  } catch {
    d = staticV3Document(urlPath);
  }
  schemaDocs.set(urlPath, d);
  return d;
}

/**
 * The component schema for a kind, or undefined when the kind is not in the documents. Built-in kinds come
 * from the static documents (their schemas only); with `custom` (a server's store), its published custom resources
 * are found too.
 */
export function schemaForKind(gvk: GroupVersionKind, opts: { custom?: CustomDocuments } = {}): { schema: OpenApiSchema; doc: OpenApiDocument } | undefined {
  const doc = staticV3Schemas(gvk.group === '' ? `api/${gvk.version}` : `apis/${gvk.group}/${gvk.version}`);
  const schemas = doc?.components?.schemas;
  if (doc && schemas) {
    for (const s of Object.values(schemas)) {
      const g = s['x-kubernetes-group-version-kind'];
      if (g?.some((x) => x.group === gvk.group && x.version === gvk.version && x.kind === gvk.kind)) return { schema: s, doc };
    }
  }
  return opts.custom?.schemaForKind(gvk);
}

/** Follows `$ref` and single-element `allOf` wrappers; keeps the wrapper's own extensions. */
export function resolveSchema(doc: OpenApiDocument, schema: OpenApiSchema | undefined): OpenApiSchema | undefined {
  let s = schema;
  let extra: OpenApiSchema = {};
  for (let i = 0; s && i < 16; i++) {
    if (s.$ref) {
      const name = s.$ref.replace('#/components/schemas/', '');
      s = doc.components?.schemas?.[name];
      continue;
    }
    if (s.allOf && s.allOf.length === 1 && !s.properties) {
      const { allOf, ...rest } = s;
      extra = { ...rest, ...extra };
      s = allOf[0];
      continue;
    }
    break;
  }
  return s ? { ...s, ...extra, description: extra.description ?? s.description } : undefined;
}
