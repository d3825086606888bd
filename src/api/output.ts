// Shapes responses: version conversion, lists, Tables and partial object metadata.
import type { KObject } from '../machinery/types.js';
import { apiVersionOf } from '../machinery/types.js';
import { storageApiVersion, type ResourceDef } from '../registry/resource.js';
import { tablePrinterOf } from '../registry/tables/def-printer.js';
import { storedJson } from '../storage/sqlite-store.js';

export type OutputFormat = 'object' | 'table' | 'partial';

/** What the Accept header asks for (JSON is always the encoding). */
export function outputFormat(accept: string | undefined): OutputFormat {
  if (!accept || !accept.includes('as=')) return 'object';
  const first = accept.split(',')[0];
  if (/as=Table/.test(first) && /g=meta\.k8s\.io/.test(first)) return 'table';
  if (/as=PartialObjectMetadata/.test(first)) return 'partial';
  return 'object';
}

/** The stored object as served in `version` (shared objects are copied only when converted). */
export function served(def: ResourceDef, version: string, stored: KObject): KObject {
  const obj = def.onRead ? def.onRead(stored) : stored;
  const apiVersion = apiVersionOf(def.group, version);
  if (def.toVersion && (version !== def.version || def.sharedStorage)) {
    const c = def.toVersion(obj, version);
    return { ...c, apiVersion, kind: def.kind };
  }
  if (obj.apiVersion === apiVersion && obj.kind === def.kind) return obj;
  return { ...obj, apiVersion, kind: def.kind };
}

/** A request body of `version` converted to the storage form. */
export function toStorage(def: ResourceDef, version: string, obj: KObject): KObject {
  const c = def.fromVersion && (version !== def.version || def.sharedStorage) ? def.fromVersion(obj, version) : obj;
  return { ...c, apiVersion: storageApiVersion(def), kind: def.sharedStorage ? c.kind ?? def.kind : def.kind };
}

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export function listBody(def: ResourceDef, version: string, items: KObject[], meta: ListMeta): Record<string, unknown> {
  return { kind: `${def.kind}List`, apiVersion: apiVersionOf(def.group, version), metadata: meta, items: items.map((o) => served(def, version, o)) };
}

/** The same list as JSON text, reusing each stored object's serialized form when no conversion is needed. */
export function listJson(def: ResourceDef, version: string, items: KObject[], meta: ListMeta): string {
  const head = JSON.stringify({ kind: `${def.kind}List`, apiVersion: apiVersionOf(def.group, version), metadata: meta });
  const parts = items.map((o) => {
    const s = served(def, version, o);
    return (s === o && storedJson(o)) || JSON.stringify(s);
  });
  return `${head.slice(0, -1)},"items":[${parts.join(',')}]}`;
}

function partial(obj: KObject): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function partialListBody(items: KObject[], meta: ListMeta): Record<string, unknown> {
  return { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta, items: items.map(partial) };
}

export function partialBody(obj: KObject): Record<string, unknown> {
  return partial(obj);
}

/** `includeObject`: None, Metadata (default) or Object. */
export function tableBody(def: ResourceDef, version: string, items: KObject[], meta: ListMeta | { resourceVersion?: string }, includeObject: string | undefined, withColumns: boolean, now: Date): Record<string, unknown> {
  const printer = tablePrinterOf(def);
  const rows = items.map((o) => {
    const s = served(def, version, o);
    const row: Record<string, unknown> = { cells: printer.cells(s, now) };
    if (includeObject === 'Object') row.object = s;
    else if (includeObject !== 'None') row.object = partial(s);
    return row;
  });
  return {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta,
    columnDefinitions: withColumns ? printer.columns : [],
    rows,
  };
}
