// Watch event lines, encoded once per (object revision, served version, output format, event type) and shared
// by every watcher that is sent the same event in the same batch of committed changes.
import type { KObject } from '../machinery/types.js';
import type { WatchEventType } from '../registry/read.js';
import type { ResourceDef } from '../registry/resource.js';
import type { WatchHub } from '../storage/watch-hub.js';
import { partialBody, served, tableBody, type OutputFormat, type TextOf } from './output.js';

/** How one watch serves its objects. */
export interface WatchShape {
  def: ResourceDef;
  version: string;
  format: OutputFormat;
  includeObject?: string;
  /** The stored text of an object, when at hand without serializing it (see Registry.textOf); none when absent. */
  textOf?: TextOf;
}

/** Identifies a shape within a cache entry: watchers of equal shapes share encoded events. */
export function shapeKey(s: WatchShape): string {
  return `${s.def.group}/${s.def.plural}/${s.version}/${s.format}/${s.includeObject ?? ''}`;
}

/** One line of the stream: `{"type":…,"object":…}` and a newline. */
export function encodeEvent(s: WatchShape, type: WatchEventType, obj: KObject, withColumns: boolean, now: Date): Buffer {
  if (s.format === 'table') {
    const table = tableBody(s.def, s.version, [obj], { resourceVersion: obj.metadata.resourceVersion }, s.includeObject, withColumns, now);
    return Buffer.from(`${JSON.stringify({ type, object: table })}\n`);
  }
  if (s.format === 'partial') return Buffer.from(`${JSON.stringify({ type, object: partialBody(served(s.def, s.version, obj)) })}\n`);
  const out = served(s.def, s.version, obj);
  const json = out === obj ? s.textOf?.(obj) : undefined;
  // The stored JSON text is reused as is (a write's own, or read back by revision: a watch's initial events): the
  // object is not serialized again.
  return Buffer.from(json !== undefined ? `{"type":"${type}","object":${json}}\n` : `${JSON.stringify({ type, object: out })}\n`);
}

/** Encodings of the batch being published, per hub: object -> shape key -> event type -> line. Dropped when the batch ends. */
type BatchCache = Map<KObject, Map<string, Partial<Record<WatchEventType, Buffer>>>>;
const batchCaches = new WeakMap<WatchHub, BatchCache>();

/**
 * The event line for `obj`, shared with every other watcher of the same shape during the current batch of `hub`.
 * Outside a batch nothing is cached. Table events with column definitions are never shared. `key` is the
 * watcher's shapeKey, computed once (a string reused as a Map key keeps its hash).
 */
export function sharedEvent(hub: WatchHub, s: WatchShape, key: string, type: WatchEventType, obj: KObject, withColumns: boolean, now: () => Date): Buffer {
  if (withColumns) return encodeEvent(s, type, obj, true, now());
  let cache = batchCaches.get(hub);
  if (!cache) {
    cache = new Map();
    batchCaches.set(hub, cache);
    hub.atBatchEnd(() => batchCaches.delete(hub));
  }
  let shapes = cache.get(obj);
  if (!shapes) cache.set(obj, (shapes = new Map()));
  let lines = shapes.get(key);
  if (!lines) shapes.set(key, (lines = {}));
  return (lines[type] ??= encodeEvent(s, type, obj, false, now()));
}
