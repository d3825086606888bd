// PATCH: JSON, merge, strategic merge and server-side apply, on objects and on the status subresource.
import type { FastifyRequest } from 'fastify';
import { ApiError, badRequest, notFound } from '../machinery/errors.js';
import { isRecord, unpinned, type KObject } from '../machinery/types.js';
import type { Registry, WriteOptions } from '../registry/registry.js';
import { storageKey, type PartialWrite, type ResourceDef } from '../registry/resource.js';
import { rfc3339 } from '../util/clock.js';
import { mediaType, parseBody, strategicMergeRefused, unsupportedPatchType } from './body.js';
import { checkApplyConfiguration, checkKind, checkPatchedJson, checkPatchedStrategic } from './patch-decode.js';
import { served, toStorage } from './output.js';
import { applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch, patchTypeOf } from './patch/index.js';
import { bool, checkWriteOptions, dryRun, fieldValidation, query, str } from './query.js';
import { customOpenApiOf } from '../openapi/custom-store.js';
import { convertedForRead, convertedForWrite, needsConversion } from './converted.js';

/** Applies a patch document of `type` to `current` (in the served version's form). */
export function applyPatch(type: 'json' | 'merge' | 'strategic', current: KObject, patch: unknown, gvk: { group: string; version: string; kind: string }): KObject {
  let out: unknown;
  if (type === 'json') out = applyJsonPatch(current, patch);
  else if (type === 'merge') out = applyMergePatch(current, patch);
  else out = applyStrategicMergePatch(current, patch, gvk);
  if (!isRecord(out)) throw badRequest('the patch produced something that is not an object');
  const obj = out as KObject;
  // A metadata of the wrong type is left for the decoding check to refuse, in the patch type's words.
  if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
  return obj;
}

/** The store's refusal of an object larger than it keeps (etcd's request limit). */
const storeTooLarge = (e: unknown) => e instanceof ApiError && e.code === 413 && e.message === 'etcdserver: request is too large';

export async function handlePatch(reg: Registry, def: ResourceDef, version: string, namespace: string, name: string, req: FastifyRequest, subresource: 'status' | PartialWrite | undefined, warnings: string[]): Promise<{ object: KObject; created: boolean }> {
  const q = query(req);
  const ct = req.headers['content-type'];
  const type = patchTypeOf(mediaType(ct));
  if (!type) throw unsupportedPatchType();
  if (type === 'strategic' && def.noStrategicMerge) throw strategicMergeRefused();
  checkWriteOptions(q, 'PatchOptions', type);
  const patch = parseBody(req.body as Buffer | undefined, type === 'apply' ? 'application/apply-patch+yaml' : 'application/json');
  if (patch === undefined) throw badRequest('the body of the request was empty');
  const gvk = { group: def.group, version, kind: def.kind };
  const mode = fieldValidation(q, 'PatchOptions');
  const opts = { dryRun: dryRun(q, 'PatchOptions'), fieldManager: str(q, 'fieldManager'), subresource, warnings, version, userAgent: req.headers['user-agent'] ?? '' };
  const ns = def.namespaced ? namespace : '';

  if (type === 'apply') {
    if (!isRecord(patch)) throw badRequest('error decoding YAML: the apply configuration must be an object');
    const applied = patch as KObject;
    checkKind(def, version, applied);
    if (!applied.apiVersion || !applied.kind) throw badRequest('apiVersion and kind must be set on the apply configuration');
    checkApplyConfiguration(def, version, applied);
    if (!isRecord(applied.metadata)) applied.metadata = {};
    if (applied.metadata.name && applied.metadata.name !== name) throw badRequest(`the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`);
    const live = reg.getStored(storageKey(def), ns, name);
    const applyOpts = { ...opts, managedFieldsSet: true };
    const ssa = { fieldManager: opts.fieldManager ?? '', force: bool(q, 'force'), now: rfc3339(reg.clock.now()), openapi: customOpenApiOf(reg) };
    if (!live) {
      if (subresource) throw notFound({ group: def.group, resource: def.plural }, name);
      const obj = applyServerSideApply(undefined, { ...applied, metadata: { ...applied.metadata, name } }, gvk, ssa);
      if (needsConversion(def, version)) {
        const stored = await convertedForWrite(reg, def, toStorage(def, version, obj), warnings);
        return { object: await reg.create(def, namespace, stored, { ...applyOpts, version: def.version }), created: true };
      }
      return { object: await reg.create(def, namespace, toStorage(def, version, obj), applyOpts), created: true };
    }
    if (needsConversion(def, version)) return patchConverted(reg, def, version, ns, name, (cur) => applyServerSideApply(cur, applied, gvk, ssa), applyOpts);
    const object = await reg.update(def, namespace, name, (cur) => unpinnedAsRead(toStorage(def, version, applyServerSideApply(served(def, version, cur), applied, gvk, ssa)), cur), applyOpts);
    return { object, created: false };
  }

  if (needsConversion(def, version)) {
    return patchConverted(reg, def, version, ns, name, (cur) => {
      const patched = applyPatch(type, cur, patch, gvk);
      if (type === 'strategic') checkPatchedStrategic(def, version, patched, patch, mode, warnings);
      else checkPatchedJson(def, version, patched, mode, warnings);
      if (!isRecord(patched.metadata)) throw badRequest('metadata: expected an object');
      return toStorage(def, version, patched);
    }, opts);
  }

  // As kube-apiserver does, a result the store finds too large is tried once more without its managedFields (which
  // can be large); the second refusal stands. Apply keeps them: they are what it is about.
  let tracked = false;
  const update = (dropManagedFields: boolean) => reg.update(def, namespace, name, (cur) => {
    const patched = applyPatch(type, served(def, version, cur), patch, gvk);
    if (type === 'strategic') checkPatchedStrategic(def, version, patched, patch, mode, warnings);
    else checkPatchedJson(def, version, patched, mode, warnings);
    if (!isRecord(patched.metadata)) throw badRequest('metadata: expected an object');
    const out = unpinnedAsRead(toStorage(def, version, patched), cur);
    tracked = Array.isArray(out.metadata.managedFields) && out.metadata.managedFields.length > 0;
    if (dropManagedFields) out.metadata.managedFields = [];
    return out;
  }, opts);
  const warned = warnings.length;
  try {
    return { object: await update(false), created: false };
  } catch (e) {
    if (!storeTooLarge(e) || !tracked) throw e;
    warnings.length = warned;
    return { object: await update(true), created: false };
  }
}

/**
 * A patch of a custom resource whose CRD converts by webhook, in another version than the stored one: the current
 * object converted to `version`, patched there, converted back, and written if it has not changed meanwhile (the
 * patched object keeps the resourceVersion it was read at, so a concurrent write answers 409).
 */
async function patchConverted(reg: Registry, def: ResourceDef, version: string, ns: string, name: string, change: (cur: KObject) => KObject, opts: WriteOptions & { warnings: string[] }): Promise<{ object: KObject; created: boolean }> {
  const current = reg.get(def, ns, name);
  const [inVersion] = await convertedForRead(reg, def, version, [current], opts.warnings);
  const changed = change(structuredClone(inVersion));
  if (changed.metadata.resourceVersion === undefined) changed.metadata.resourceVersion = current.metadata.resourceVersion;
  const stored = await convertedForWrite(reg, def, changed, opts.warnings);
  return { object: await reg.update(def, ns, name, () => stored, { ...opts, version: def.version }), created: false };
}

/**
 * A patched object still holding the resourceVersion it was read at pins none (as upstream's patcher, which applies the
 * patch again to the newer object when the write conflicts); one whose patch set another resourceVersion keeps it, and
 * conflicts as it should.
 */
function unpinnedAsRead(out: KObject, cur: KObject): KObject {
  return out.metadata.resourceVersion === cur.metadata.resourceVersion ? unpinned(out) : out;
}
