// The generic store every resource goes through: lookups, reads, and the entry points of the write pipeline.
import type { Storage } from '../storage/storage.js';
import type { ChangeListener, Trigger } from '../storage/watch-hub.js';
import { StorageError } from '../storage/errors.js';
import { alreadyExists, ApiError, conflict, gone, notFound } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { ServerState, type ServerSlot } from '../util/server-slot.js';
import type { UserInfo } from '../auth/types.js';
import type { Authorization } from '../auth/authorization.js';
import type { ComponentInfo } from '../auth/identities.js';
import type { ComponentAuditSink } from '../audit/component-audit.js';
import { servedVersions, storageKey, type ResourceDef, type StrategyContext } from './resource.js';
import { createSteps, RetryUpdate, updateSteps } from './write.js';
import type { WriteOptions } from './write-options.js';
import { deleteSteps, type DeleteOptions } from './delete.js';
import { drive } from '../admission/chain.js';
import type { AdmissionPlugin } from '../admission/types.js';
import type { ExternalMetricsSource } from '../metrics-apis/sources.js';
import { builtinAdmission } from '../admission/builtin/index.js';
import { checkReadRevision, listObjects, watchObjects, type ListOptions, type ListResult, type WatchHandle, type WatchOptions, type WatchSink } from './read.js';

export type { WriteOptions, DeleteOptions, ListOptions, ListResult, WatchOptions, WatchSink };

/** The steps' options of a write: admission may wait (call webhooks) unless it is the server's own. */
const waiting = <O extends { webhooks?: false }>(opts: O): O & { canWait: boolean } => ({ ...opts, canWait: opts.webhooks !== false });

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
  /** Admission plugins in the order they run: the built-ins, then policies and webhooks (see `addAdmission`). */
  admission: readonly AdmissionPlugin[] = builtinAdmission;
  /** What answers a webhook whose Service's endpoints are simulated pods (`--simulated-webhooks`, see service-forward.ts). */
  simulatedWebhooks: 'allow' | 'fail' = 'allow';
  /** External metrics sources (see metrics-apis/sources.ts), asked in order; register with `addExternalMetrics`. */
  externalMetrics: readonly ExternalMetricsSource[] = [];
  /** The served resources, in declaration order; resources added at run time (custom resources) come last. */
  private served: readonly ResourceDef[] = [];
  private readonly defsChanged = new Set<() => void>();
  /** This server's state kept by other parts (see util/server-slot.ts); views read the root's. */
  private readonly serverState = new ServerState();

  constructor(
    readonly store: Storage,
    defs: ResourceDef[],
    readonly clock: Clock,
    readonly log: Logger,
  ) {
    for (const d of defs) this.index(d);
  }

  /** The served resources: a new array whenever they change (so derived data may be cached by its identity). */
  get defs(): readonly ResourceDef[] {
    return this.served;
  }

  private index(d: ResourceDef): void {
    this.served = [...this.served, d];
    for (const v of servedVersions(d)) this.byGVR.set(`${d.group}/${v}/${d.plural}`, d);
    if (!d.sharedStorage) this.byKey.set(storageKey(d), d);
    this.byGroupKind.set(`${d.group}/${d.kind}`, d);
  }

  /**
   * Serves a resource from now on (a custom resource once its definition is established), or serves a changed
   * declaration in place of the one with the same storage key.
   */
  add(def: ResourceDef): void {
    const root = this.root();
    if (root !== this) return root.add(def);
    const old = this.byKey.get(storageKey(def));
    if (old) this.unindex(old);
    this.index(def);
    this.notifyDefs();
  }

  /** Stops serving the resource stored under `key` (its objects stay in storage until deleted). */
  remove(key: string): void {
    const root = this.root();
    if (root !== this) return root.remove(key);
    const old = this.byKey.get(key);
    if (!old) return;
    this.unindex(old);
    this.notifyDefs();
  }

  /**
   * The registry a view (see `as`) was made from: served resources are indexed there, once for every view, and
   * it owns the server's state (see `state`).
   */
  root(): Registry {
    const proto: unknown = Object.getPrototypeOf(this);
    return proto instanceof Registry ? proto.root() : this;
  }

  /** This server's value of `slot` (the OpenAPI store, log provider, open watches, ...), made on first use. */
  state<T>(slot: ServerSlot<T>): T {
    return this.root().serverState.get(slot);
  }

  private unindex(d: ResourceDef): void {
    this.served = this.served.filter((x) => x !== d);
    for (const v of servedVersions(d)) if (this.byGVR.get(`${d.group}/${v}/${d.plural}`) === d) this.byGVR.delete(`${d.group}/${v}/${d.plural}`);
    if (this.byKey.get(storageKey(d)) === d) this.byKey.delete(storageKey(d));
    if (this.byGroupKind.get(`${d.group}/${d.kind}`) === d) this.byGroupKind.delete(`${d.group}/${d.kind}`);
  }

  /** Calls `listener` whenever the served resources change (discovery, OpenAPI and APIServices follow). */
  onDefsChanged(listener: () => void): () => void {
    this.defsChanged.add(listener);
    return () => this.defsChanged.delete(listener);
  }

  private notifyDefs(): void {
    for (const l of this.defsChanged) l();
  }

  /** Registers an external metrics source (on the root registry, which every view reads through); returns its removal. */
  addExternalMetrics(source: ExternalMetricsSource): () => void {
    const root = this.root();
    root.externalMetrics = [...root.externalMetrics, source];
    return () => {
      root.externalMetrics = root.externalMetrics.filter((s) => s !== source);
    };
  }

  /** Appends admission plugins (policies, webhooks) after those already in the server's list; returns their removal. */
  addAdmission(...plugins: AdmissionPlugin[]): () => void {
    // On the root: every view reads the server's list through it.
    const root = this.root();
    root.admission = [...root.admission, ...plugins];
    return () => {
      root.admission = root.admission.filter((p) => !plugins.includes(p));
    };
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
  private audited<T>(verb: string, def: ResourceDef, namespace: string, name: string, subresource: string | undefined, okCode: number, write: () => T, objectOf: (r: Awaited<T>) => KObject): T {
    const sink = this.componentAudit;
    if (!sink || !this.component || !this.actor) return write();
    const started = sink.now();
    const base = { user: this.actor, component: this.component, verb, def, namespace: def.namespaced ? namespace : '', name, subresource: subresource ?? '', started };
    const done = (r: Awaited<T>) => {
      sink.record({ ...base, code: okCode, object: objectOf(r) });
      return r;
    };
    const fail = (error: unknown): never => {
      sink.record({ ...base, error });
      throw error;
    };
    try {
      const r = write();
      // A write that waited (for admission or the store) is recorded when it settles.
      return (r instanceof Promise ? r.then(done, fail) : done(r as Awaited<T>)) as T;
    } catch (error) {
      return fail(error);
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

  /**
   * Every committed change of the objects stored under `key` ('*' for all) from now on, after the commit and in
   * revision order; returns the unsubscribe function. A `trigger` narrows it to objects whose indexed field has one value.
   */
  onChange(key: string, listener: ChangeListener, trigger?: Trigger): () => void {
    return this.store.hub.subscribe(key, listener, trigger);
  }

  /**
   * The JSON text (byte for byte JSON.stringify) of a write not yet published, found by the object's identity, when
   * the storage holds it in memory; undefined otherwise (the caller serializes the object).
   */
  pendingText(obj: KObject): string | undefined {
    return this.store.pendingText?.(obj);
  }

  /**
   * The texts the storage keeps of `def`'s objects (see Storage.storedText), or else those of writes not yet
   * published: for objects it returned, unchanged.
   */
  textOf(def: ResourceDef): (obj: KObject) => string | undefined {
    const store = this.store;
    if (!store.storedText) return (o) => this.pendingText(o);
    const key = storageKey(def);
    return (o) => store.storedText!(key, o);
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

  // The three writes run the write pipeline (write.ts, delete.ts) as far as it can without waiting and answer at once
  // (not a Promise; a refusal is thrown) when nothing had to: the common case on SQLite, where a later read in the
  // same turn sees the write. They answer a Promise when something waited: an admission webhook, or a store that must
  // ask another process (etcd). The API server's request path and every in-process writer (through the client) write
  // this way; callers await the answer.
  //
  // The server's own writes pass `webhooks: false`: the pod's update or delete behind a binding or an eviction
  // (registry/pod-binding.ts, pod-eviction.ts; upstream writes it past admission, which reviewed the subresource's
  // create), the bootstrap objects (bootstrap.ts), the built-in APIServices (resources/apiservices.ts), the CRD and
  // admission-policy status controllers (apiextensions/crd-controller.ts, admission/policy/status-controller.ts) and a
  // legacy token's last-used label (auth/security.ts). They still wait for a store that must.

  /** Creates `obj` (see above). */
  create(def: ResourceDef, namespace: string, obj: KObject, opts: WriteOptions = {}): KObject | Promise<KObject> {
    const steps = () => drive(createSteps(this, def, namespace, obj, waiting(opts)));
    if (opts.audit === false) return steps();
    return this.audited(opts.audit?.verb ?? 'create', def, namespace, obj.metadata?.name ?? '', opts.audit?.subresource ?? opts.subresource, 201, steps, (r) => r);
  }

  /**
   * Reads the current object, applies `mutate` to a copy and writes it back (see above); a replace is `() => obj`,
   * whose resourceVersion, when set, must be the stored one. Starts over on a conflict when the mutation did not pin a
   * resourceVersion itself (something waited and the object changed meanwhile, or a store shared with other
   * processes, etcd, held a newer object).
   */
  update(def: ResourceDef, namespace: string, name: string, mutate: (current: KObject) => KObject, opts: WriteOptions = {}): KObject | Promise<KObject> {
    const attempt = (n: number): KObject | Promise<KObject> => {
      const again = (e: unknown): KObject | Promise<KObject> => {
        if (!(e instanceof RetryUpdate)) throw e;
        if (n >= 9) throw conflict({ group: def.group, resource: def.plural }, name);
        return attempt(n + 1);
      };
      let r: KObject | Promise<KObject>;
      try {
        r = drive(updateSteps(this, def, namespace, name, mutate, waiting(opts)));
      } catch (e) {
        return again(e);
      }
      return r instanceof Promise ? r.catch(again) : r;
    };
    const first = () => this.readThroughOn404(def, namespace, name, () => attempt(0));
    if (opts.audit === false) return first();
    return this.audited(opts.audit?.verb ?? 'update', def, namespace, name, opts.audit?.subresource ?? opts.subresource, opts.audit?.verb === 'create' ? 201 : 200,
      first, (r) => r);
  }

  /** Deletes the object, or marks it for deletion when finalizers or a grace period hold it (see above). */
  delete(def: ResourceDef, namespace: string, name: string, opts: DeleteOptions & { warnings?: string[] } = {}): { object: KObject; deleted: boolean } | Promise<{ object: KObject; deleted: boolean }> {
    const steps = () => drive(deleteSteps(this, def, namespace, name, waiting(opts)));
    return this.audited('delete', def, namespace, name, undefined, 200, () => this.readThroughOn404(def, namespace, name, steps), (r) => r.object);
  }

  /**
   * Runs `write`; when it finds no object while another process sharing the store (etcd) may have written it already
   * (this process's copy may lag behind; kube-apiserver reads etcd itself for a write), runs it once more after this
   * process's copy has caught up with the store for that object. On a store of its own, `write` alone.
   */
  private readThroughOn404<T>(def: ResourceDef, namespace: string, name: string, write: () => T | Promise<T>): T | Promise<T> {
    const catchUp = this.store.exclusive ? undefined : this.store.consistentRead?.bind(this.store);
    if (!catchUp) return write();
    const again = (e: unknown): Promise<T> => {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
      return (catchUp({ resource: storageKey(def), namespace: def.namespaced ? namespace : '', name }) ?? Promise.resolve()).then(write);
    };
    try {
      const r = write();
      return r instanceof Promise ? r.catch(again) : r;
    } catch (e) {
      return again(e);
    }
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
      case 'TooLarge':
        return new ApiError(413, 'RequestEntityTooLarge', err.message);
      case 'Closed':
        return new ApiError(503, 'ServiceUnavailable', 'the server is shutting down');
      case 'Timeout':
        return new ApiError(504, 'Timeout', err.message);
    }
  }
}

