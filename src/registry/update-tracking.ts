// The write pipeline's field manager for creates, updates and non-apply patches: metadata.managedFields gets the
// writer's `operation: Update` entry (see api/patch/update-managers.ts). As upstream, it runs on the decoded and
// defaulted object, before admission and the kind's prepare hooks (what those set belongs to no manager); an update
// of an object without managedFields (cleared with `[]`) records nothing, server-side apply records its own entry,
// and a binding leaves them alone.
import type { KObject } from '../machinery/types.js';
import { rfc3339 } from '../util/clock.js';
import { customOpenApiOf } from '../openapi/custom-store.js';
import { compareObjects, createdFieldsV1, emptyObjectLike } from '../api/patch/field-changes.js';
import { rootNode, rootNodeOrMeta } from '../api/patch/schema.js';
import { entryOf, managerFromUserAgent, recordUpdate, type ManagedFieldsEntry, type UpdateWriter } from '../api/patch/update-managers.js';
import { managedFieldsDecodable } from './managed-fields.js';
import type { ResourceDef } from './resource.js';
import type { RegistryCore } from './registry-core.js';
import type { WriteOptions } from './write-options.js';

/** Who a write is attributed to: the fieldManager, else the User-Agent (an in-process component's own). */
function writerOf(reg: RegistryCore, def: ResourceDef, opts: WriteOptions): UpdateWriter {
  const version = opts.version ?? def.version;
  const subresource = opts.admitAs?.subresource ?? opts.subresource;
  const writer: UpdateWriter = {
    manager: opts.fieldManager || managerFromUserAgent(opts.userAgent ?? reg.component?.userAgent ?? 'kube-apiserver'),
    apiVersion: def.group ? `${def.group}/${version}` : version,
  };
  if (subresource) writer.subresource = subresource;
  if (subresource !== 'scale') writer.time = rfc3339(reg.clock.now());
  return writer;
}

const tracked = (opts: WriteOptions) => !opts.managedFieldsSet && opts.subresource !== 'binding';
const hasStatus = (def: ResourceDef) => !!def.subresources?.includes('status');

function schemaOf(reg: RegistryCore, def: ResourceDef) {
  return rootNodeOrMeta({ group: def.group, version: def.version, kind: def.kind }, customOpenApiOf(reg));
}

/** Records the create of `obj` (decoded and defaulted, in the storage version). */
export function trackCreate(reg: RegistryCore, def: ResourceDef, obj: KObject, opts: WriteOptions): void {
  if (!tracked(opts)) return;
  const meta = obj.metadata;
  const sent = meta.managedFields;
  const entries = (sent !== undefined && managedFieldsDecodable(sent) ? sent : []) as ManagedFieldsEntry[];
  // A built-in kind is compared against its Go type's empty object, a custom one against nothing.
  const builtin = !!rootNode({ group: def.group, version: def.version, kind: def.kind });
  const root = schemaOf(reg, def);
  let next: ManagedFieldsEntry[];
  if (entries.length === 0) {
    const fieldsV1 = createdFieldsV1(obj, root, builtin, hasStatus(def));
    next = fieldsV1 ? [entryOf(writerOf(reg, def, opts), fieldsV1)] : [];
  } else {
    next = recordUpdate(entries, compareObjects(builtin ? emptyObjectLike(obj) : undefined, obj, root, { skipStatus: hasStatus(def) }), writerOf(reg, def, opts));
  }
  if (next.length) meta.managedFields = next as never;
  else delete meta.managedFields;
}

/** Records the update from `cur` to `result` (its metadata is the write's own); `result` carries the entries to start from. */
export function trackUpdate(reg: RegistryCore, def: ResourceDef, cur: KObject, result: KObject, opts: WriteOptions): void {
  if (!tracked(opts)) return;
  const meta = result.metadata;
  const entries = meta.managedFields;
  if (!Array.isArray(entries) || entries.length === 0) {
    if (entries !== undefined) delete meta.managedFields;
    return;
  }
  const isStatus = opts.subresource === 'status';
  const changes = compareObjects(cur, result, schemaOf(reg, def), { statusOnly: isStatus, skipStatus: !isStatus && hasStatus(def) });
  const next = recordUpdate(entries as ManagedFieldsEntry[], changes, writerOf(reg, def, opts));
  if (next !== entries) meta.managedFields = next as never;
}
