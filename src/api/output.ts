// Shapes responses: version conversion, lists, Tables and partial object metadata.
import type { KObject } from '../machinery/types.js';
import { apiVersionOf } from '../machinery/types.js';
import { storageApiVersion, storageKey, type ResourceDef } from '../registry/resource.js';
import { tablePrinterOf } from '../registry/tables/def-printer.js';
import type { ListSpec } from './list-stream.js';

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
  // Already converted by the CRD's webhook (api/converted.ts): served as the webhook gave it.
  if (def.conversionWebhook && version !== def.version && stored.apiVersion === apiVersionOf(def.group, version)) return stored;
  const obj = def.onRead ? def.onRead(stored) : stored;
  const apiVersion = apiVersionOf(def.group, version);
  if (def.toVersion && (version !== def.version || def.sharedStorage)) {
    const c = def.toVersion(obj, version);
    return { ...c, apiVersion, kind: def.kind };
  }
  if (obj.apiVersion === apiVersion && obj.kind === def.kind) return obj;
  return { ...obj, apiVersion, kind: def.kind };
}

/** A request body of `version` converted to the storage form (but see conversion webhooks below). */
export function toStorage(def: ResourceDef, version: string, obj: KObject): KObject {
  // Left in its version for the CRD's conversion webhook, which the handler awaits (api/converted.ts).
  if (def.conversionWebhook && version !== def.version) return { ...obj, apiVersion: apiVersionOf(def.group, version), kind: def.kind };
  const c = def.fromVersion && (version !== def.version || def.sharedStorage) ? def.fromVersion(obj, version) : obj;
  return { ...c, apiVersion: storageApiVersion(def), kind: def.sharedStorage ? c.kind ?? def.kind : def.kind };
}

export interface ListMeta {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

function partial(obj: KObject): Record<string, unknown> {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function partialBody(obj: KObject): Record<string, unknown> {
  return partial(obj);
}

/** `includeObject`: None, Metadata (default) or Object. */
export function tableBody(def: ResourceDef, version: string, items: KObject[], meta: ListMeta | { resourceVersion?: string }, includeObject: string | undefined, withColumns: boolean, now: Date): Record<string, unknown> {
  const printer = tablePrinterOf(def, version);
  const rows = (printer.order ? printer.order(items) : items).map((o) => {
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

/**
 * The JSON text of a stored object, when one is at hand without serializing it (byte for byte JSON.stringify(o)):
 * written and not yet published (Registry.pendingText), or kept by the store (Registry.textOf).
 */
export type TextOf = (o: KObject) => string | undefined;

/** The stored object's JSON text as served in `version` (the stored text itself when no conversion is needed). */
function servedJson(def: ResourceDef, version: string, o: KObject, textOf: TextOf): string {
  const s = served(def, version, o);
  return (s === o && textOf(o)) || JSON.stringify(s);
}

/**
 * The entries `from` to `to` as `servedJson` gives them: an object with its stored text as that text, runs of the
 * others as the text of one array (one JSON.stringify for many objects, joined by the list stream).
 */
function servedRuns(def: ResourceDef, version: string, items: readonly KObject[], from: number, to: number, emit: (text: string, array: boolean) => void, textOf: TextOf): void {
  let run: KObject[] = [];
  for (let i = from; i < to; i++) {
    const o = items[i];
    const s = served(def, version, o);
    const text = s === o ? textOf(o) : undefined;
    if (text === undefined) {
      run.push(s);
      continue;
    }
    if (run.length) emit(JSON.stringify(run), true);
    run = [];
    emit(text, false);
  }
  if (run.length) emit(JSON.stringify(run), true);
}

/**
 * A list response to stream, in the format asked for: each entry is encoded only when the client reads it, from
 * the stored JSON text when there is one (`textOf`: the store's, see TextOf). `items` is the list's snapshot (references
 * to immutable objects).
 */
export function listSpec(def: ResourceDef, version: string, items: readonly KObject[], meta: ListMeta, fmt: OutputFormat, includeObject: string | undefined, now: () => Date, textOf: TextOf): ListSpec {
  if (fmt === 'partial') {
    return {
      head: { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: meta }, field: 'items', count: items.length,
      entry: (i) => JSON.stringify(partial(items[i])),
    };
  }
  if (fmt === 'table') {
    const printer = tablePrinterOf(def, version);
    const at = now();
    const rows = printer.order ? printer.order(items) : items;
    return {
      head: { kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: meta, columnDefinitions: printer.columns }, field: 'rows', count: items.length,
      entry: (i) => {
        const s = served(def, version, rows[i]);
        const cells = JSON.stringify(printer.cells(s, at));
        if (includeObject === 'None') return `{"cells":${cells}}`;
        const object = includeObject === 'Object' ? (s === rows[i] && textOf(s)) || JSON.stringify(s) : JSON.stringify(partial(s));
        return `{"cells":${cells},"object":${object}}`;
      },
    };
  }
  return {
    head: { kind: `${def.kind}List`, apiVersion: apiVersionOf(def.group, version), metadata: meta }, field: 'items', count: items.length,
    entry: (i) => servedJson(def, version, items[i], textOf),
    entries: (from, to, emit) => servedRuns(def, version, items, from, to, emit, textOf),
  };
}
