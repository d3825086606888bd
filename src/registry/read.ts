// Reads: list with selectors and pagination, and watch with selector transitions.
import { ApiError, badRequest, fieldForbidden, fieldNotSupported, gone, type FieldError } from '../machinery/errors.js';
import { checkFieldSelector, commonFieldGetters, matchesFields, parseFieldSelector, type FieldGetter, type FieldRequirement } from '../machinery/fields.js';
import { matchesSelector, parseLabelSelector, type Selector } from '../machinery/labels.js';
import { isRecord, type KObject } from '../machinery/types.js';
import { StorageError } from '../storage/errors.js';
import type { Change, Trigger } from '../storage/watch-hub.js';
import type { StoreWatch } from '../storage/storage.js';
import { storageKey, type ResourceDef } from './resource.js';
import type { RegistryCore } from './registry-core.js';

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  items: KObject[];
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';
export type WatchSink = (type: WatchEventType, object: KObject) => void;

interface Filter {
  labels: Selector;
  fields: FieldRequirement[];
  getters: Record<string, FieldGetter>;
  namespace?: string;
}

function buildFilter(def: ResourceDef, namespace: string | undefined, labelSelector = '', fieldSelector = ''): Filter {
  const getters = { ...commonFieldGetters, ...def.fieldSelectors };
  const fields = parseFieldSelector(fieldSelector);
  checkFieldSelector(fields, getters, !def.fieldSelectors);
  return { labels: parseLabelSelector(labelSelector), fields, getters, namespace: def.namespaced ? namespace : undefined };
}

function matches(f: Filter, obj: KObject): boolean {
  if (f.namespace !== undefined && obj.metadata.namespace !== f.namespace) return false;
  return matchesSelector(f.labels, obj.metadata.labels) && matchesFields(f.fields, f.getters, obj);
}

/** A read at a resourceVersion this store has not reached yet is a 504, as the watch cache answers. */
export function checkReadRevision(reg: RegistryCore, resourceVersion: string | undefined): void {
  const rv = parseRv(resourceVersion);
  if (rv !== undefined && rv > reg.store.revision()) throw tooLargeResourceVersion(rv, reg.store.revision());
}

function tooLargeResourceVersion(rv: number, current: number): ApiError {
  return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${rv}, current: ${current}`, {
    causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1,
  });
}

function parseRv(rv: string | undefined, what = 'resourceVersion'): number | undefined {
  if (rv === undefined || rv === '') return undefined;
  if (!/^\d+$/.test(rv)) throw badRequest(`invalid ${what}: "${rv}"`);
  return Number(rv);
}

interface ContinueToken {
  rv: number;
  start: string;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: t.rv, start: t.start })).toString('base64url');
}

function decodeContinue(s: string): ContinueToken {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
  } catch {
    v = undefined;
  }
  if (!isRecord(v) || v.v !== 'meta.k8s.io/v1' || typeof v.rv !== 'number' || typeof v.start !== 'string') throw badRequest(`continue key is not valid: "${s}"`);
  return { rv: v.rv, start: v.start };
}

/** Upstream's ValidateListOptions: a 422 on ListOptions.meta.k8s.io. */
function validateListOptions(opts: ListOptions, watch?: WatchOptions): void {
  const match = opts.resourceVersionMatch;
  const errs: FieldError[] = [];
  const f = 'resourceVersionMatch';
  if (watch && watch.sendInitialEvents !== undefined) {
    // A streaming list (watch with initial events) must ask for NotOlderThan; resourceVersion may be empty.
    if (match !== 'NotOlderThan') errs.push(fieldForbidden('sendInitialEvents', 'sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan'));
  } else if (match) {
    if (watch) errs.push(fieldForbidden(f, 'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'));
    if (!opts.resourceVersion) errs.push(fieldForbidden(f, 'resourceVersionMatch is forbidden unless resourceVersion is provided'));
    if (opts.continue) errs.push(fieldForbidden(f, 'resourceVersionMatch is forbidden when continue is provided'));
    if (match !== 'Exact' && match !== 'NotOlderThan') errs.push(fieldNotSupported(f, match, ['Exact', 'NotOlderThan', '']));
    if (match === 'Exact' && opts.resourceVersion === '0') errs.push(fieldForbidden(f, 'resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  }
  if (!errs.length) return;
  const parts = errs.map((e) => `${e.field}: ${e.message}`);
  throw new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${parts.length === 1 ? parts[0] : `[${parts.join(', ')}]`}`, {
    name: '', group: 'meta.k8s.io', kind: 'ListOptions', causes: errs.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
  });
}

const keyOf = (o: KObject) => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

export function listObjects(reg: RegistryCore, def: ResourceDef, namespace: string | undefined, opts: ListOptions): ListResult {
  const filter = buildFilter(def, namespace, opts.labelSelector, opts.fieldSelector);
  const current = reg.store.revision();
  const rv = parseRv(opts.resourceVersion);
  validateListOptions(opts);
  if (rv !== undefined && rv > current) throw tooLargeResourceVersion(rv, current);
  if (opts.resourceVersionMatch === 'Exact' && rv !== current && rv !== undefined && rv !== 0) {
    throw gone(`The resourceVersion for the provided list is too old.`);
  }
  let start = '';
  if (opts.continue) {
    if (opts.resourceVersion) throw badRequest('specifying resource version is not allowed when using continue');
    const token = decodeContinue(opts.continue);
    if (token.rv < reg.store.compactedRevision()) {
      throw gone('The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.');
    }
    start = token.start;
  }
  const limit = opts.limit && opts.limit > 0 ? opts.limit : undefined;
  const key = storageKey(def);
  const selects = filter.fields.length > 0 || filter.labels.length > 0;
  const result: ListResult = { items: [], resourceVersion: String(current) };
  if (limit === undefined && !start) {
    // The whole list: a snapshot of references (stored objects are never mutated), filtered only when asked to.
    const all = reg.store.list(key, filter.namespace);
    result.items = selects ? all.filter((o) => matches(filter, o)) : all;
    return result;
  }
  // A page reads from the key after `start` and stops at the first match past the limit: O(page), not O(list).
  const items = result.items;
  const remaining = reg.store.scan(key, filter.namespace, start, (o) => {
    if (selects && !matches(filter, o)) return true;
    if (limit !== undefined && items.length >= limit) return false;
    items.push(o);
    return true;
  });
  if (limit !== undefined && remaining > 0 && items.length > 0) {
    result.continue = encodeContinue({ rv: current, start: keyOf(items[items.length - 1]) });
    if (!opts.labelSelector && !opts.fieldSelector) result.remainingItemCount = remaining;
  }
  return result;
}

export interface WatchEvent {
  type: WatchEventType;
  object: KObject;
}

/** A started watch: live events go to its sink; the events from before it (the backlog) are pulled. */
export interface WatchHandle {
  stop(): void;
  /**
   * Up to about `max` events from before the watch began (the initial state, then changes replayed from the
   * log), in order; `done` once there are no more. Live events follow them. Throws a 410 when compaction
   * overtakes a replay still under way.
   */
  backlog(max: number): { events: WatchEvent[]; done: boolean };
}

/** Fields the cacher indexes watchers by (an exact field selector on one is an indexed trigger), per storage key. */
const indexedFields: Record<string, string> = { 'core/pods': 'spec.nodeName' };

/** The hub trigger for a watch that selects one value of its resource's indexed field, if it does. */
function triggerFor(key: string, f: Filter): Trigger | undefined {
  const field = indexedFields[key];
  const of = field ? f.getters[field] : undefined;
  const req = of && f.fields.find((r) => r.field === field && !r.negate);
  return req ? { of: of!, value: req.value } : undefined;
}

/** Streams changes; with no resourceVersion or "0" it first sends the current state as ADDED events. */
export function watchObjects(reg: RegistryCore, def: ResourceDef, namespace: string | undefined, opts: WatchOptions, sink: WatchSink): WatchHandle {
  const filter = buildFilter(def, namespace, opts.labelSelector, opts.fieldSelector);
  validateListOptions({ resourceVersion: opts.resourceVersion, resourceVersionMatch: opts.resourceVersionMatch }, opts);
  const rv = parseRv(opts.resourceVersion);
  const key = storageKey(def);
  const initial = rv === undefined || rv === 0 || opts.sendInitialEvents === true;
  const from = initial ? reg.store.revision() : rv!;
  // A revision this store has not reached yet cannot be resumed from (the watch cache's answer, sent as an ERROR event).
  if (from > reg.store.revision()) throw tooLargeResourceVersion(from, reg.store.revision());
  // The current state, as of now: a snapshot of references, filtered as it is sent.
  const state = initial ? reg.store.list(key, filter.namespace) : [];
  let at = 0;
  const event = (c: Change): WatchEvent | undefined => {
    const now = matches(filter, c.object);
    if (c.type === 'ADDED') return now ? { type: 'ADDED', object: c.object } : undefined;
    if (c.type === 'DELETED') return now || (c.previous && matches(filter, c.previous)) ? { type: 'DELETED', object: c.object } : undefined;
    const before = c.previous ? matches(filter, c.previous) : now;
    if (now && before) return { type: 'MODIFIED', object: c.object };
    if (now) return { type: 'ADDED', object: c.object };
    if (before) return { type: 'DELETED', object: c.object };
    return undefined;
  };
  let watch: StoreWatch;
  try {
    watch = reg.store.watch(key, from, (c) => {
      const e = event(c);
      if (e) sink(e.type, e.object);
    }, triggerFor(key, filter));
  } catch (e) {
    if (e instanceof StorageError) throw reg.translate(e, def, '');
    throw e;
  }
  const w = watch;
  let replayDone = false;
  return {
    stop: () => w.stop(),
    backlog(max) {
      const events: WatchEvent[] = [];
      while (at < state.length && events.length < max) {
        const o = state[at++];
        if (matches(filter, o)) events.push({ type: 'ADDED', object: o });
      }
      if (at >= state.length) state.length = at = 0;
      if (events.length || replayDone) return { events, done: replayDone && !events.length };
      let changes;
      try {
        changes = w.replay(max);
      } catch (e) {
        if (e instanceof StorageError) throw reg.translate(e, def, '');
        throw e;
      }
      if (!changes.length) replayDone = true;
      for (const c of changes) {
        const e = event(c);
        if (e) events.push(e);
      }
      return { events, done: replayDone };
    },
  };
}
