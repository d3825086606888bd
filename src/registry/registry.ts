// The generic store every resource goes through: lookups, reads, and the entry points of the write pipeline.
import type { SqliteStore } from '../storage/sqlite-store.js';
import { StorageError } from '../storage/errors.js';
import { alreadyExists, ApiError, conflict, gone, notFound } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { UserInfo } from '../auth/types.js';
import type { Authorization } from '../auth/authorization.js';
import type { ComponentInfo } from '../auth/identities.js';
import type { ComponentAuditSink } from '../audit/component-audit.js';
import { servedVersions, storageKey, type ResourceDef, type StrategyContext } from './resource.js';
import { createObject, updateObject, type WriteOptions } from './write.js';
import { deleteObject, type DeleteOptions } from './delete.js';
import { checkReadRevision, listObjects, watchObjects, type ListOptions, type ListResult, type WatchHandle, type WatchOptions, type WatchSink } from './read.js';

export type { WriteOptions, DeleteOptions, ListOptions, ListResult, WatchOptions, WatchSink };

export class Registry {
  private readonly byGVR = new Map<string, ResourceDef>();
  private readonly byKey = new Map<string, ResourceDef>();
  private readonly byGroupKind = new Map<string, ResourceDef>();
  /** The user this registry view acts for (see `as`); undefined on the root registry. */
  readonly actor: UserInfo | undefined;
  /** Set on views of trusted in-process components (controllers, scheduler, kubelets): their writes are audited here. */
  readonly component: ComponentInfo | undefined;
  /** The server's authorization (set once at start-up): access reviews and RBAC's escalation checks use it. */
  authorization: Authorization | undefined;
  /** Where component writes are audited (set at start-up when an audit log is configured). */
  componentAudit: ComponentAuditSink | undefined;

  constructor(
    readonly store: SqliteStore,
    readonly defs: ResourceDef[],
    readonly clock: Clock,
    readonly log: Logger,
  ) {
    for (const d of defs) {
      for (const v of servedVersions(d)) this.byGVR.set(`${d.group}/${v}/${d.plural}`, d);
      if (!d.sharedStorage) this.byKey.set(storageKey(d), d);
      this.byGroupKind.set(`${d.group}/${d.kind}`, d);
    }
  }

  find(group: string, version: string, plural: string): ResourceDef | undefined {
    return this.byGVR.get(`${group}/${version}/${plural}`);
  }
  findByKind(group: string, kind: string): ResourceDef | undefined {
    return this.byGroupKind.get(`${group}/${kind}`);
  }
  defForKey(key: string): ResourceDef | undefined {
    return this.byKey.get(key);
  }

  /**
   * A view of this registry acting as `user`: the same resources, store and clock, with writes attributed to
   * `user` (HTTP requests act as the authenticated user, in-process components as their upstream identity).
   * `component` marks a trusted in-process component: RBAC does not check it, the audit log records its writes.
   */
  as(user: UserInfo, component?: ComponentInfo): Registry {
    // Plain assignments shadow the root's fields (cheaper than defineProperty: one view per request).
    const view = Object.create(this) as { -readonly [K in keyof Registry]: Registry[K] };
    view.actor = user;
    view.component = component;
    return view as Registry;
  }

  /** Runs a write of a component view and records it in the audit log (when there is one). */
  private audited<T>(verb: string, def: ResourceDef, namespace: string, name: string, subresource: string | undefined, okCode: number, write: () => T, objectOf: (r: T) => KObject): T {
    const sink = this.componentAudit;
    if (!sink || !this.component || !this.actor) return write();
    const started = sink.now();
    const base = { user: this.actor, component: this.component, verb, def, namespace: def.namespaced ? namespace : '', name, subresource: subresource ?? '', started };
    try {
      const r = write();
      sink.record({ ...base, code: okCode, object: objectOf(r) });
      return r;
    } catch (error) {
      sink.record({ ...base, error });
      throw error;
    }
  }

  ctx(dryRun = false): StrategyContext {
    return { registry: this, clock: this.clock, dryRun, user: this.actor };
  }

  /** Raw stored objects by storage key (`apps/deployments`); shared, never mutate. */
  getStored(key: string, namespace: string, name: string): KObject | undefined {
    return this.store.get(key, namespace, name);
  }
  listStored(key: string, namespace?: string): KObject[] {
    return this.store.list(key, namespace);
  }

  /** The current object; `resourceVersion` (as on a GET) must not be ahead of the store. */
  get(def: ResourceDef, namespace: string, name: string, resourceVersion?: string): KObject {
    checkReadRevision(this, resourceVersion);
    const obj = this.store.get(storageKey(def), def.namespaced ? namespace : '', name);
    if (!obj) throw notFound({ group: def.group, resource: def.plural }, name);
    return obj;
  }

  list(def: ResourceDef, namespace: string | undefined, opts: ListOptions): ListResult {
    return listObjects(this, def, namespace, opts);
  }

  watch(def: ResourceDef, namespace: string | undefined, opts: WatchOptions, sink: WatchSink): WatchHandle {
    return watchObjects(this, def, namespace, opts, sink);
  }

  create(def: ResourceDef, namespace: string, obj: KObject, opts: WriteOptions = {}): KObject {
    if (opts.audit === false) return createObject(this, def, namespace, obj, opts);
    return this.audited(opts.audit?.verb ?? 'create', def, namespace, obj.metadata?.name ?? '', opts.audit?.subresource ?? opts.subresource, 201,
      () => createObject(this, def, namespace, obj, opts), (r) => r);
  }

  update(def: ResourceDef, namespace: string, name: string, obj: KObject, opts: WriteOptions = {}): KObject {
    return this.guaranteedUpdate(def, namespace, name, () => obj, opts);
  }

  /**
   * Reads the current object, applies `mutate` to a copy and writes it back; retries on conflicts
   * when the mutation did not pin a resourceVersion itself.
   */
  guaranteedUpdate(def: ResourceDef, namespace: string, name: string, mutate: (current: KObject) => KObject, opts: WriteOptions = {}): KObject {
    if (opts.audit === false) return updateObject(this, def, namespace, name, mutate, opts);
    return this.audited(opts.audit?.verb ?? 'update', def, namespace, name, opts.audit?.subresource ?? opts.subresource, opts.audit?.verb === 'create' ? 201 : 200,
      () => updateObject(this, def, namespace, name, mutate, opts), (r) => r);
  }

  delete(def: ResourceDef, namespace: string, name: string, opts: DeleteOptions = {}): { object: KObject; deleted: boolean } {
    return this.audited('delete', def, namespace, name, undefined, 200, () => deleteObject(this, def, namespace, name, opts), (r) => r.object);
  }

  /** Translates the fixed list of storage errors into API errors for this resource. */
  translate(err: unknown, def: ResourceDef, name: string): unknown {
    if (!(err instanceof StorageError)) return err;
    const ref = { group: def.group, resource: def.plural };
    switch (err.code) {
      case 'NotFound':
        return notFound(ref, name);
      case 'AlreadyExists':
        return alreadyExists(ref, name);
      case 'Conflict':
        return conflict(ref, name);
      case 'Expired':
        return gone(err.message);
      case 'Closed':
        return new ApiError(503, 'ServiceUnavailable', 'the server is shutting down');
    }
  }
}

