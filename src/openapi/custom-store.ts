// The custom resources published to /openapi/v2 and /openapi/v3, and the documents built from them: one store a
// server (two servers in one process publish apart). Publishing only records the definition and marks its
// group-versions stale: documents are built on first request, so a burst of definitions costs one build per
// group-version (and one v2 merge), not one per event.
import { createHash } from 'node:crypto';
import type { GroupVersionKind } from '../machinery/types.js';
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';
import type { OpenApiDocument, OpenApiSchema } from './schema-types.js';
import { checkSpec, cloneJson, type CustomResourceSpec } from './custom-types.js';
import { buildV2Parts, buildV3Document, type Published } from './custom-render.js';

/** How many custom resources may be published at once (a definition past it is refused). */
export const maxPublished = 10_000;

interface BuiltV3 {
  doc: OpenApiDocument;
  bytes: Buffer;
  hash: string;
}

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

/** One server's published custom resources and the documents built from them. */
export class CustomOpenApiStore {
  private readonly published = new Map<string, CustomResourceSpec>();
  private generation = 0;
  private readonly v3Built = new Map<string, BuiltV3>();
  private v2Built: { generation: number; parts: ReturnType<typeof buildV2Parts> } | undefined;
  /** Publications deferred until a document is read (building a spec converts and copies whole schemas). */
  private readonly deferred = new Map<string, () => CustomResourceSpec | undefined>();

  private changed(paths: string[]): void {
    this.generation++;
    for (const p of paths) this.v3Built.delete(p);
  }

  /**
   * Publishes the custom resource `make()` describes the next time any document is read, not now: a burst of CRDs
   * (kubectl apply of a folder) converts each schema at most once, off the path to Established.
   */
  publishLater(key: string, make: () => CustomResourceSpec | undefined): void {
    this.deferred.set(key, make);
    this.generation++;
  }

  private publishDeferred(): void {
    if (!this.deferred.size) return;
    const all = [...this.deferred];
    this.deferred.clear();
    for (const [key, make] of all) {
      const spec = make();
      if (spec) this.publish(key, spec);
    }
  }

  /**
   * Publishes (or re-publishes) the custom resource stored under `key` in the OpenAPI documents. Returns false,
   * publishing nothing, when the names cannot be those of a valid definition or too many are published.
   */
  publish(key: string, spec: CustomResourceSpec): boolean {
    this.deferred.delete(key);
    if (typeof spec !== 'object' || spec === null || checkSpec(spec) !== undefined) return false;
    if (!this.published.has(key) && this.published.size >= maxPublished) return false;
    const copy = detach(spec);
    const before = servedPaths(this.published.get(key));
    this.published.set(key, copy);
    this.changed([...before, ...servedPaths(copy)]);
    return true;
  }

  /** Removes the custom resource stored under `key` from the documents. */
  unpublish(key: string): void {
    this.deferred.delete(key);
    const old = this.published.get(key);
    if (!old) return;
    this.published.delete(key);
    this.changed(servedPaths(old));
  }

  /** Changes with every publish and unpublish (caches derived from the documents compare it). */
  currentGeneration(): number {
    return this.generation;
  }

  /** `apis/<group>/<version>` of every served custom group-version, sorted. */
  v3Paths(): string[] {
    this.publishDeferred();
    const out = new Set<string>();
    for (const s of this.published.values()) for (const p of servedPaths(s)) out.add(p);
    return [...out].sort();
  }

  private entriesFor(urlPath?: string): Published[] {
    this.publishDeferred();
    const out: Published[] = [];
    const keys = [...this.published.keys()].sort();
    for (const k of keys) {
      const spec = this.published.get(k)!;
      for (const version of spec.versions) if (version.served && (urlPath === undefined || gvPath(spec.group, version.name) === urlPath)) out.push({ spec, version });
    }
    return out;
  }

  /** The v3 document served at /openapi/v3/<urlPath> for custom resources (built on first use), or undefined. */
  v3Document(urlPath: string): BuiltV3 | undefined {
    let b = this.v3Built.get(urlPath);
    if (b) return b;
    const entries = this.entriesFor(urlPath);
    if (!entries.length) return undefined;
    const doc = buildV3Document(entries);
    const bytes = Buffer.from(JSON.stringify(doc));
    b = { doc, bytes, hash: createHash('sha512').update(bytes).digest('hex').slice(0, 128).toUpperCase() };
    this.v3Built.set(urlPath, b);
    return b;
  }

  /** A custom kind's published v3 schema and the document its $refs resolve in. */
  schemaForKind(gvk: GroupVersionKind): { schema: OpenApiSchema; doc: OpenApiDocument } | undefined {
    this.publishDeferred();
    if (!gvk.group) return undefined;
    const built = this.v3Document(gvPath(gvk.group, gvk.version));
    const schemas = built?.doc.components?.schemas;
    if (!built || !schemas) return undefined;
    for (const s of Object.values(schemas)) {
      const g = s['x-kubernetes-group-version-kind'];
      if (Array.isArray(g) && g.some((x) => x.group === gvk.group && x.version === gvk.version && x.kind === gvk.kind)) return { schema: s, doc: built.doc };
    }
    return undefined;
  }

  /** The definitions and paths custom resources add to the v2 document, or undefined when none is published. */
  v2Parts(): ReturnType<typeof buildV2Parts> | undefined {
    this.publishDeferred();
    if (!this.published.size) return undefined;
    if (this.v2Built?.generation !== this.generation) this.v2Built = { generation: this.generation, parts: buildV2Parts(this.entriesFor()) };
    return this.v2Built.parts;
  }

  /** The v2 document merged with these custom resources, rebuilt after a change (kept here, per server). */
  v2Merged: { generation: number; bytes: Buffer } | undefined;
  /** The ETag and the protobuf encoding of that document, by the document they were made from (see v2-protobuf.ts). */
  v2ETag: { source: Buffer; value: string } | undefined;
  v2Protobuf: { source: Buffer; bytes: Buffer } | undefined;
}

const stores = new ServerSlot('custom resources OpenAPI', () => new CustomOpenApiStore());

/** The store of the server `reg` (its Registry or a view of it) belongs to, made on first use. */
export function customOpenApiOf(reg: ServerStateHolder): CustomOpenApiStore {
  return reg.state(stores);
}
