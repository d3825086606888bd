// The custom resources published to /openapi/v2 and /openapi/v3, and the documents built from them. Publishing
// only records the definition and marks its group-versions stale: documents are built on first request, so a
// burst of definitions costs one build per group-version (and one v2 merge), not one per event.
import { createHash } from 'node:crypto';
import type { GroupVersionKind } from '../machinery/types.js';
import type { OpenApiDocument, OpenApiSchema } from './documents.js';
import { checkSpec, cloneJson, type CustomResourceSpec } from './custom-types.js';
import { buildV2Parts, buildV3Document, type Published } from './custom-render.js';

/** How many custom resources may be published at once (a definition past it is refused). */
export const maxPublished = 10_000;

const published = new Map<string, CustomResourceSpec>();
let generation = 0;

interface BuiltV3 {
  doc: OpenApiDocument;
  bytes: Buffer;
  hash: string;
}
const v3Built = new Map<string, BuiltV3>();
let v2Built: { generation: number; parts: ReturnType<typeof buildV2Parts> } | undefined;

const gvPath = (group: string, version: string) => `apis/${group}/${version}`;

function servedPaths(spec: CustomResourceSpec | undefined): string[] {
  return spec ? spec.versions.filter((v) => v.served).map((v) => gvPath(spec.group, v.name)) : [];
}

/** A detached copy: later changes to the caller's objects do not reach the documents. */
function detach(spec: CustomResourceSpec): CustomResourceSpec {
  return {
    group: spec.group, kind: spec.kind, listKind: spec.listKind, plural: spec.plural, singular: String(spec.singular ?? ''),
    namespaced: spec.namespaced === true,
    shortNames: Array.isArray(spec.shortNames) ? spec.shortNames.filter((s) => typeof s === 'string') : undefined,
    versions: spec.versions.map((v) => ({
      name: v.name, served: v.served === true,
      schema: v.schema === undefined ? undefined : cloneJson(v.schema),
      schemaV2: v.schemaV2 === undefined ? undefined : cloneJson(v.schemaV2),
    })),
    subresources: { status: spec.subresources?.status ? {} : undefined, scale: spec.subresources?.scale ? cloneJson(spec.subresources.scale) : undefined },
    preserveUnknownFields: spec.preserveUnknownFields === true,
  };
}

function changed(paths: string[]): void {
  generation++;
  for (const p of paths) v3Built.delete(p);
}

/**
 * Publishes (or re-publishes) the custom resource stored under `key` in the OpenAPI documents. Returns false,
 * publishing nothing, when the names cannot be those of a valid definition or too many are published.
 */
/** Publications deferred until a document is read (building a spec converts and copies whole schemas). */
const deferred = new Map<string, () => CustomResourceSpec | undefined>();

/**
 * Publishes the custom resource `make()` describes the next time any document is read, not now: a burst of CRDs
 * (kubectl apply of a folder) converts each schema at most once, off the path to Established.
 */
export function publishCustomResourceLater(key: string, make: () => CustomResourceSpec | undefined): void {
  deferred.set(key, make);
  generation++;
}

function publishDeferred(): void {
  if (!deferred.size) return;
  const all = [...deferred];
  deferred.clear();
  for (const [key, make] of all) {
    const spec = make();
    if (spec) publishCustomResource(key, spec);
  }
}

export function publishCustomResource(key: string, spec: CustomResourceSpec): boolean {
  deferred.delete(key);
  if (typeof spec !== 'object' || spec === null || checkSpec(spec) !== undefined) return false;
  if (!published.has(key) && published.size >= maxPublished) return false;
  const copy = detach(spec);
  const before = servedPaths(published.get(key));
  published.set(key, copy);
  changed([...before, ...servedPaths(copy)]);
  return true;
}

/** Removes the custom resource stored under `key` from the documents. */
export function unpublishCustomResource(key: string): void {
  deferred.delete(key);
  const old = published.get(key);
  if (!old) return;
  published.delete(key);
  changed(servedPaths(old));
}

/** Changes with every publish and unpublish (caches derived from the documents compare it). */
export function customGeneration(): number {
  return generation;
}

/** `apis/<group>/<version>` of every served custom group-version, sorted. */
export function customV3Paths(): string[] {
  publishDeferred();
  const out = new Set<string>();
  for (const s of published.values()) for (const p of servedPaths(s)) out.add(p);
  return [...out].sort();
}

function entriesFor(urlPath?: string): Published[] {
  publishDeferred();
  const out: Published[] = [];
  const keys = [...published.keys()].sort();
  for (const k of keys) {
    const spec = published.get(k)!;
    for (const version of spec.versions) if (version.served && (urlPath === undefined || gvPath(spec.group, version.name) === urlPath)) out.push({ spec, version });
  }
  return out;
}

/** The v3 document served at /openapi/v3/<urlPath> for custom resources (built on first use), or undefined. */
export function customV3Document(urlPath: string): BuiltV3 | undefined {
  let b = v3Built.get(urlPath);
  if (b) return b;
  const entries = entriesFor(urlPath);
  if (!entries.length) return undefined;
  const doc = buildV3Document(entries);
  const bytes = Buffer.from(JSON.stringify(doc));
  b = { doc, bytes, hash: createHash('sha512').update(bytes).digest('hex').slice(0, 128).toUpperCase() };
  v3Built.set(urlPath, b);
  return b;
}

/** A custom kind's published v3 schema and the document its $refs resolve in. */
export function customSchemaForKind(gvk: GroupVersionKind): { schema: OpenApiSchema; doc: OpenApiDocument } | undefined {
  publishDeferred();
  if (!gvk.group) return undefined;
  const built = customV3Document(gvPath(gvk.group, gvk.version));
  const schemas = built?.doc.components?.schemas;
  if (!built || !schemas) return undefined;
  for (const s of Object.values(schemas)) {
    const g = s['x-kubernetes-group-version-kind'];
    if (Array.isArray(g) && g.some((x) => x.group === gvk.group && x.version === gvk.version && x.kind === gvk.kind)) return { schema: s, doc: built.doc };
  }
  return undefined;
}

/** The definitions and paths custom resources add to the v2 document, or undefined when none is published. */
export function customV2Parts(): ReturnType<typeof buildV2Parts> | undefined {
  publishDeferred();
  if (!published.size) return undefined;
  if (v2Built?.generation !== generation) v2Built = { generation, parts: buildV2Parts(entriesFor()) };
  return v2Built.parts;
}
