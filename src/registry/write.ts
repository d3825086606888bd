// The write pipeline (what an update keeps of the stored object: update-merge.ts): system metadata -> defaults -> mutating admission -> prepare -> validate -> validating admission
// -> persist. It is written as steps (see admission/chain.ts), driven synchronously as long as nothing has to wait: an
// admission webhook, or a store that must ask another process (etcd) waits, and the rest is awaited.
import { randomUUID } from 'node:crypto';
import { alreadyExists, badRequest, conflict, invalid, notFound, type FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import { rfc3339 } from '../util/clock.js';
import { maxObjectDepth } from '../machinery/depth-limits.js';
import { jsonEqual } from '../util/json-tree.js';
import { keepManagedTimesIfOnlyChange, managedFieldsDecodable } from './managed-fields.js';
import { trackCreate, trackUpdate } from './update-tracking.js';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/common.js';
import { nameIsDnsSubdomain } from '../machinery/names.js';
import { storageKey, type ResourceDef } from './resource.js';
import type { RegistryCore as Registry } from './registry-core.js';
import type { WriteOptions } from './write-options.js';
import { fillEmptyStatus } from './empty-status.js';
import { StorageError } from '../storage/errors.js';
import { admitNow, settled, type Steps } from '../admission/chain.js';
import type { AdmissionAttributes, AdmissionOperation } from '../admission/types.js';
import { operationOptions, type OperationOptionsInput } from '../admission/options.js';
import { adminUser } from '../auth/types.js';
import { checkDepth, ownCopy } from './own-copy.js';
import { deletesOnUpdate, matchesResourceVersion, merge, sameSpec } from './update-merge.js';

/** Thrown inside an awaited update whose object changed meanwhile: the update starts over from the current object. */
export class RetryUpdate extends Error {}

const nameChars = 'bcdfghjklmnpqrstvwxz2456789';
export function generateName(prefix: string): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += nameChars[Math.floor(Math.random() * nameChars.length)];
  return `${prefix.slice(0, 63 - 5)}${s}`;
}

/**
 * The field errors of `obj` as `def` declares them: the ObjectMeta rules every kind shares (on create with the def's
 * name rule), then the kind's own rules (on a status write, its status rules when it has some). `old` is set on updates.
 */
export function objectErrors(def: ResourceDef, obj: KObject, old: KObject | undefined, version?: string, status = false): FieldError[] {
  const errs: FieldError[] = [];
  if (!old) {
    errs.push(...validateObjectMeta(obj, { namespaced: def.namespaced, nameFn: def.nameValidation ?? nameIsDnsSubdomain, maxNameLength: def.maxNameLength }));
  } else {
    errs.push(...validateObjectMetaUpdate(obj, old));
    // The name is immutable (checked above); the other ObjectMeta rules apply to the new object as on create.
    errs.push(...validateObjectMeta(obj, { namespaced: def.namespaced, nameFn: () => [] }).filter((e) => !e.field.startsWith('metadata.name')));
  }
  if (status && old && def.validateStatus) errs.push(...def.validateStatus(obj, old));
  else if (def.validate) errs.push(...def.validate(obj, old, version));
  return errs;
}

function validate(reg: Registry, def: ResourceDef, obj: KObject, old: KObject | undefined, subresource?: WriteOptions['subresource'], version?: string): void {
  const part = subresource && subresource !== 'status' ? def.partialWrites?.[subresource] : undefined;
  const errors: FieldError[] = part && old ? part.validate(obj, old) : objectErrors(def, obj, old, version, subresource === 'status');
  if (errors.length) throw invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
}

/** What admission sees of a write. `canWait` is set by the registry (false for the server's own writes). */
export function admissionAttributes(reg: Registry, def: ResourceDef, operation: AdmissionOperation, namespace: string, name: string,
  object: KObject | undefined, oldObject: KObject | undefined, opts: OperationOptionsInput & { subresource?: string; warnings?: string[]; version?: string; canWait?: boolean }): AdmissionAttributes {
  const version = opts.version ?? def.version;
  return {
    operation, def, resource: { group: def.group, version, resource: def.plural }, kind: { group: def.group, version, kind: def.kind },
    subresource: opts.subresource ?? '', namespace: def.namespaced ? namespace : '', name, object, oldObject,
    user: reg.actor ?? adminUser, dryRun: !!opts.dryRun, warnings: opts.warnings ?? [], registry: reg, canWait: !!opts.canWait,
    options: operationOptions(operation, opts),
  };
}

export function* createSteps(reg: Registry, def: ResourceDef, namespace: string, input: KObject, opts: WriteOptions & { canWait?: boolean }): Steps<KObject> {
  let obj: KObject;
  if (opts.owned) {
    checkDepth(def, input);
    obj = input;
  } else obj = ownCopy(def, input);
  obj.metadata ??= {};
  const ctx = reg.ctx(!!opts.dryRun);
  if (def.namespaced) {
    if (obj.metadata.namespace && obj.metadata.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    obj.metadata.namespace = namespace;
  } else delete obj.metadata.namespace;
  if (def.virtualCreate) return def.virtualCreate(obj, ctx);
  if (def.subresources?.includes('status') && !def.keepStatusOnCreate) delete obj.status;
  applyDefaults(def, obj, opts.version);
  trackCreate(reg, def, obj, opts);
  // Mutating admission sees the object as decoded; a plugin may replace it (a webhook's patch).
  const attrs = admissionAttributes(reg, def, 'CREATE', namespace, obj.metadata.name ?? '', obj, undefined, opts);
  const mutating = admitNow(reg.admission, 'mutate', attrs);
  let mutated = false;
  if (mutating && (yield* mutating)) {
    obj = checkedReplacement(def, attrs.object, obj);
    applyDefaults(def, obj, opts.version);
    mutated = true;
  }
  const meta = (obj.metadata ??= {});
  if (def.namespaced) meta.namespace = namespace;
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  meta.uid = randomUUID();
  meta.creationTimestamp = rfc3339(reg.clock.now());
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (def.generation) meta.generation = 1;
  else delete meta.generation;
  // The entries are the field manager's own (checked when they came from the client), unless admission changed them.
  if (mutated && meta.managedFields !== undefined && !managedFieldsDecodable(meta.managedFields)) delete meta.managedFields;
  def.prepareCreate?.(obj, ctx);
  fillEmptyStatus(def, obj);
  const early = def.prevalidate?.(obj, undefined);
  if (early) yield early;
  validate(reg, def, obj, undefined, undefined, opts.version);
  attrs.object = obj;
  attrs.name = meta.name ?? '';
  const validating = admitNow(reg.admission, 'validate', attrs);
  if (validating) yield* validating;
  if (opts.dryRun) {
    if (reg.getStored(storageKey(def), meta.namespace ?? '', meta.name ?? '')) throw alreadyExists({ group: def.group, resource: def.plural }, meta.name ?? '');
    return obj;
  }
  try {
    return yield* settled(reg.store.create(storageKey(def), obj));
  } catch (e) {
    throw reg.translate(e, def, meta.name ?? '');
  }
}

/** The defaults the kind's def declares, on an object whose metadata is an object (as decoding leaves it). */
export function applyDefaults(def: ResourceDef, obj: KObject, version?: string): void {
  if (!obj.metadata || typeof obj.metadata !== 'object') obj.metadata = {};
  def.defaults?.(obj, version);
}

/**
 * The defaults of the kind applied to an update. A status write's result shares everything but metadata and status
 * with the stored object, so the defaults see only those two (the shared part was defaulted when it was written).
 */
function defaulted(def: ResourceDef, result: KObject, isStatus: boolean, version: string | undefined): KObject {
  if (!isStatus || !def.defaults) {
    applyDefaults(def, result, version);
    return result;
  }
  const view: KObject = { apiVersion: result.apiVersion, kind: result.kind, metadata: result.metadata };
  if (result.status !== undefined) view.status = result.status;
  applyDefaults(def, view, version);
  const out: KObject = { ...result, metadata: view.metadata };
  if (view.status !== undefined) out.status = view.status;
  else delete out.status;
  return out;
}

/** The object a mutating plugin left: still an object, within the depth limit (a webhook's patch may be anything). */
function checkedReplacement(def: ResourceDef, object: KObject | undefined, before: KObject): KObject {
  if (object === before) return before;
  if (!object || typeof object !== 'object' || Array.isArray(object)) throw badRequest('admission plugins must leave an object');
  checkDepth(def, object);
  if (!object.metadata || typeof object.metadata !== 'object') object.metadata = {};
  return object;
}

/**
 * Update through a mutation of the current object (PUT passes a function returning the body). The mutation gets a
 * copy of the stored object (the object itself with `opts.pure`); what it returns is copied again unless `opts.owned` (the objects it reaches may be
 * the caller's), except on status writes, which take only its status (copied) and keep the rest of the stored object.
 */
export function* updateSteps(reg: Registry, def: ResourceDef, namespace: string, name: string, mutate: (cur: KObject) => KObject, opts: WriteOptions & { canWait?: boolean }): Steps<KObject> {
  const key = storageKey(def);
  const ns = def.namespaced ? namespace : '';
  const cur = reg.getStored(key, ns, name);
  if (!cur) throw notFound({ group: def.group, resource: def.plural }, name);
  const isStatus = opts.subresource === 'status';
  const mutated = mutate(opts.pure ? cur : ownCopy(def, cur));
  let next: KObject;
  if (isStatus) next = { ...mutated, status: ownCopy(def, mutated.status) };
  // A pure mutation's result shares the stored object's parts, which the steps below write into: never given away.
  else if (opts.owned && !opts.pure) {
    checkDepth(def, mutated);
    next = mutated;
  } else next = ownCopy(def, mutated);
  const nextMeta = next.metadata ?? {};
  if (nextMeta.name !== undefined && nextMeta.name !== name) {
    throw badRequest(`the name of the object (${nextMeta.name}) does not match the name on the URL (${name})`);
  }
  if (def.namespaced && nextMeta.namespace && nextMeta.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  const sentVersion = nextMeta.resourceVersion;
  if (!matchesResourceVersion(sentVersion, cur.metadata.resourceVersion)) throw conflict({ group: def.group, resource: def.plural }, name);
  if (!isStatus) next.metadata = nextMeta;
  let result = merge(def, cur, next, opts.subresource, reg.clock.now());
  const ctx = reg.ctx(!!opts.dryRun);
  const undefaulted = !!opts.subresource && opts.subresource !== 'status' && !!def.partialWrites?.[opts.subresource]?.undefaulted;
  if (!undefaulted) result = defaulted(def, result, isStatus, opts.version);
  trackUpdate(reg, def, cur, result, opts);
  const attrs = admissionAttributes(reg, def, 'UPDATE', namespace, name, result, cur, opts);
  const as = opts.admitAs;
  if (as) Object.assign(attrs, { subresource: as.subresource, kind: as.kind, object: as.view(result), oldObject: as.view(cur) });
  const mutating = admitNow(reg.admission, 'mutate', attrs);
  if (mutating && (yield* mutating) && !as) {
    const replaced = checkedReplacement(def, attrs.object, result);
    result = replaced === result ? result : merge(def, cur, replaced, opts.subresource, reg.clock.now());
    if (!undefaulted) result = defaulted(def, result, isStatus, opts.version);
  }
  if (!opts.subresource) def.prepareUpdate?.(result, cur, ctx);
  else if (isStatus) def.prepareStatusUpdate?.(result, cur, ctx);
  fillEmptyStatus(def, result);
  // A binding leaves the generation alone, as upstream's binding storage writes past the pod strategy.
  if (def.generation && !isStatus && opts.subresource !== 'binding' && !sameSpec(result, cur)) {
    result.metadata.generation = (cur.metadata.generation ?? 0) + 1;
  }
  result.metadata.resourceVersion = cur.metadata.resourceVersion;
  const early = def.prevalidate?.(result, cur);
  if (early) yield early;
  // As upstream, a write that changes nothing is validated and admitted all the same; only the store is spared it.
  validate(reg, def, result, cur, opts.subresource, opts.version);
  attrs.object = as ? as.view(result) : result;
  const validating = admitNow(reg.admission, 'validate', attrs);
  if (validating) yield* validating;
  if (jsonEqual(result, cur, maxObjectDepth) || jsonEqual(keepManagedTimesIfOnlyChange(result, cur), cur, maxObjectDepth)) return cur;
  if (opts.dryRun) return result;
  try {
    const expected = Number(cur.metadata.resourceVersion);
    if (deletesOnUpdate(def, result, cur)) {
      const gone = yield* settled(reg.store.delete(key, ns, name, expected));
      def.afterDelete?.(gone, ctx);
      return gone;
    }
    return yield* settled(reg.store.update(key, result, expected));
  } catch (e) {
    // Admission waited and the object changed meanwhile: an update that pinned no resourceVersion starts over.
    const pinned = sentVersion !== undefined && sentVersion !== null && sentVersion !== '' && String(sentVersion) !== '0';
    if (e instanceof StorageError && e.code === 'Conflict' && !pinned) throw new RetryUpdate();
    throw reg.translate(e, def, name);
  }
}
