// The write pipeline: system metadata -> defaults -> prepare -> validate -> admission -> persist.
import { randomUUID } from 'node:crypto';
import { alreadyExists, badRequest, conflict, forbidden, invalid, notFound, type FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import { rfc3339 } from '../util/clock.js';
import { jsonDepth } from '../util/json-tree.js';
import { maxObjectDepth, objectTooDeep } from '../machinery/depth-limits.js';
import { applyDefaults } from './defaults/index.js';
import { managedFieldsDecodable } from './managed-fields.js';
import { validateObject } from './validation/index.js';
import { storageKey, type PartialWrite, type ResourceDef } from './resource.js';
import type { Registry } from './registry.js';
import { fillEmptyStatus } from './empty-status.js';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  /**
   * 'status' writes only .status; a partial write ('resize', 'ephemeralcontainers', 'approval' of CertificateSigningRequests) only the part its def declares;
   * anything else everything but .status.
   */
  subresource?: 'status' | PartialWrite;
  /** Collected `Warning` header texts. */
  warnings?: string[];
  /** The object given to create is the caller's to give away (a decoded request body): it is not copied first. */
  owned?: boolean;
  /**
   * How a component's write appears in the audit log when it is not a plain create/update (the scheduler's
   * binding is a `create` of `pods/binding`); false when it belongs to a write already recorded.
   */
  audit?: { verb: string; subresource?: string } | false;
}

const nameChars = 'bcdfghjklmnpqrstvwxz2456789';
export function generateName(prefix: string): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += nameChars[Math.floor(Math.random() * nameChars.length)];
  return `${prefix.slice(0, 63 - 5)}${s}`;
}

function gvkOf(def: ResourceDef) {
  return { group: def.group, version: def.version, kind: def.kind };
}

function validate(reg: Registry, def: ResourceDef, obj: KObject, old: KObject | undefined, subresource?: WriteOptions['subresource']): void {
  const part = subresource && subresource !== 'status' ? def.partialWrites?.[subresource] : undefined;
  const errors: FieldError[] = part && old ? part.validate(obj, old) : [
    ...validateObject(gvkOf(def), obj, old, { namespaced: def.namespaced }),
    ...(def.validate?.(obj, old) ?? []),
  ];
  if (errors.length) throw invalid(def.kind, def.group, obj.metadata.name ?? '', errors);
}

function admitNamespace(reg: Registry, def: ResourceDef, namespace: string): void {
  if (!def.namespaced) return;
  const ns = reg.getStored('core/namespaces', '', namespace);
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, namespace);
  if ((ns.status as { phase?: string } | undefined)?.phase === 'Terminating') {
    const message = `unable to create new content in namespace ${namespace} because it is being terminated`;
    throw forbidden(`${def.plural}${def.group ? `.${def.group}` : ''} is forbidden: ${message}`, {
      kind: def.plural, group: def.group || undefined,
      causes: [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }],
    });
  }
}

/** What is stored is copied and serialized by V8's recursive routines: refuse what nests deeper than they go. */
function checkDepth(def: ResourceDef, obj: KObject): void {
  if (jsonDepth(obj, maxObjectDepth) > maxObjectDepth) throw objectTooDeep(def.kind);
}

export function createObject(reg: Registry, def: ResourceDef, namespace: string, input: KObject, opts: WriteOptions): KObject {
  checkDepth(def, input);
  const obj = opts.owned ? input : structuredClone(input);
  const meta = (obj.metadata ??= {});
  const ctx = reg.ctx(!!opts.dryRun);
  if (def.namespaced) {
    if (meta.namespace && meta.namespace !== namespace) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    meta.namespace = namespace;
  } else delete meta.namespace;
  if (def.virtualCreate) return def.virtualCreate(obj, ctx);
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  meta.uid = randomUUID();
  meta.creationTimestamp = rfc3339(reg.clock.now());
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  if (def.generation) meta.generation = 1;
  else delete meta.generation;
  if (meta.managedFields !== undefined && !managedFieldsDecodable(meta.managedFields)) delete meta.managedFields;
  if (def.subresources?.includes('status') && !def.keepStatusOnCreate) delete obj.status;
  if (def.defaults) def.defaults(obj);
  else applyDefaults(gvkOf(def), obj);
  def.prepareCreate?.(obj, ctx);
  fillEmptyStatus(def, obj);
  validate(reg, def, obj, undefined);
  admitNamespace(reg, def, namespace);
  if (opts.dryRun) {
    if (reg.getStored(storageKey(def), meta.namespace ?? '', meta.name ?? '')) throw alreadyExists({ group: def.group, resource: def.plural }, meta.name ?? '');
    return obj;
  }
  try {
    return reg.store.create(storageKey(def), obj);
  } catch (e) {
    throw reg.translate(e, def, meta.name ?? '');
  }
}

const maxUint64 = (1n << 64n) - 1n;

/**
 * Whether an update carrying `sent` may replace the object at `current`: as upstream's storage versioner reads it, an
 * empty or "0" resourceVersion is an unconditional update, any other must be the current one (numerically: "05" is
 * 5). A value that is no unsigned integer is refused (upstream lets strconv's error through as a 500; here a 400).
 */
export function matchesResourceVersion(sent: unknown, current: string | undefined): boolean {
  if (sent === undefined || sent === null || sent === '') return true;
  const text = String(sent);
  if (!/^\d+$/.test(text)) throw badRequest(`strconv.ParseUint: parsing ${JSON.stringify(text)}: invalid syntax`);
  const n = BigInt(text);
  if (n > maxUint64) throw badRequest(`strconv.ParseUint: parsing ${JSON.stringify(text)}: value out of range`);
  return n === 0n || (current !== undefined && /^\d+$/.test(current) && n === BigInt(current));
}

const specOf = (o: KObject) => {
  const { metadata: _m, status: _s, ...rest } = o;
  return JSON.stringify(rest);
};

function merge(def: ResourceDef, cur: KObject, next: KObject, opts: WriteOptions): KObject {
  const cm = cur.metadata;
  let result: KObject;
  if (opts.subresource === 'status') {
    result = { ...structuredClone(cur), status: next.status };
  } else if (opts.subresource) {
    const part = def.partialWrites?.[opts.subresource];
    if (!part) throw new Error(`${def.plural} has no ${opts.subresource} subresource`);
    result = part.merge(cur, next);
  } else {
    result = next;
    if (def.subresources?.includes('status')) {
      if (cur.status === undefined) delete result.status;
      else result.status = structuredClone(cur.status);
    }
  }
  const m = (result.metadata ??= {});
  m.name = cm.name;
  if (def.namespaced) m.namespace = cm.namespace;
  m.uid = cm.uid;
  m.creationTimestamp = cm.creationTimestamp;
  if (cm.deletionTimestamp) m.deletionTimestamp = cm.deletionTimestamp;
  else delete m.deletionTimestamp;
  if (cm.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = cm.deletionGracePeriodSeconds;
  else delete m.deletionGracePeriodSeconds;
  if (cm.generation !== undefined) m.generation = cm.generation;
  if (m.managedFields === undefined || m.managedFields === null || !managedFieldsDecodable(m.managedFields)) m.managedFields = cm.managedFields;
  if (m.managedFields === undefined) delete m.managedFields;
  delete m.selfLink;
  return result;
}

/** Update through a mutation of the current object (PUT passes a function returning the body). */
export function updateObject(reg: Registry, def: ResourceDef, namespace: string, name: string, mutate: (cur: KObject) => KObject, opts: WriteOptions): KObject {
  const key = storageKey(def);
  const ns = def.namespaced ? namespace : '';
  const cur = reg.getStored(key, ns, name);
  if (!cur) throw notFound({ group: def.group, resource: def.plural }, name);
  const mutated = mutate(structuredClone(cur));
  checkDepth(def, mutated);
  const next = structuredClone(mutated);
  next.metadata ??= {};
  if (next.metadata.name !== undefined && next.metadata.name !== name) {
    throw badRequest(`the name of the object (${next.metadata.name}) does not match the name on the URL (${name})`);
  }
  if (def.namespaced && next.metadata.namespace && next.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  if (!matchesResourceVersion(next.metadata.resourceVersion, cur.metadata.resourceVersion)) throw conflict({ group: def.group, resource: def.plural }, name);
  const result = merge(def, cur, next, opts);
  const ctx = reg.ctx(!!opts.dryRun);
  if (def.defaults) def.defaults(result);
  else applyDefaults(gvkOf(def), result);
  if (!opts.subresource) def.prepareUpdate?.(result, cur, ctx);
  fillEmptyStatus(def, result);
  if (def.generation && opts.subresource !== 'status' && specOf(result) !== specOf(cur)) {
    result.metadata.generation = (cur.metadata.generation ?? 0) + 1;
  }
  result.metadata.resourceVersion = cur.metadata.resourceVersion;
  if (JSON.stringify(result) === JSON.stringify(cur)) return cur;
  validate(reg, def, result, cur, opts.subresource);
  if (opts.dryRun) return result;
  try {
    if (result.metadata.deletionTimestamp && cur.metadata.finalizers?.length && !result.metadata.finalizers?.length && def.plural !== 'namespaces') {
      const gone = reg.store.delete(key, ns, name, Number(cur.metadata.resourceVersion));
      def.afterDelete?.(gone, ctx);
      return gone;
    }
    return reg.store.update(key, result, Number(cur.metadata.resourceVersion));
  } catch (e) {
    throw reg.translate(e, def, name);
  }
}
