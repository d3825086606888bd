// The in-process client: how controllers, the scheduler, the kubelets and add-ons read, write and watch objects.
// Reads come from the store's in-memory state (a read-your-writes cache: objects are shared, never copied, never to
// be mutated); writes go through the registry's full pipeline as the client's identity; watches are the store's
// change feed. This is the one place outside registry/, storage/ and api/ that touches the store.
import type { KObject } from '../machinery/types.js';
import { ApiError } from '../machinery/errors.js';
import { matchesSelector, parseLabelSelector, type Selector } from '../machinery/labels.js';
import type { Registry, WriteOptions, DeleteOptions } from '../registry/registry.js';
import { storageKey, type ResourceDef } from '../registry/resource.js';
import type { UserInfo } from '../auth/types.js';
import type { ComponentInfo } from '../auth/identities.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { Resolver } from './resolve.js';
import { Informer, type InformerOptions } from './informer.js';
import type { ChangeListener, ResourceRef, WatchTrigger } from './types.js';
import type { BuiltinResources } from '../generated/k8s/resources.js';
import type { ServerSlot } from '../util/server-slot.js';
import { ClientServices } from './services.js';

/** A built-in resource's reference, as the generated types name it (`'apps/v1/deployments'`). */
export type BuiltinRef = keyof BuiltinResources;

export type { WriteOptions, DeleteOptions };

export interface ClientListOptions {
  /** A label selector: the string form (`app=web,tier!=db`) or parsed requirements. */
  labelSelector?: string | Selector;
}

const views = new WeakMap<Registry, Client>();

/** The client acting as the registry view's identity (one per view, made once). */
export function clientFor(reg: Registry): Client {
  let c = views.get(reg);
  if (!c) views.set(reg, (c = new Client(reg, new Resolver(reg))));
  return c;
}

export class Client {
  readonly clock: Clock;
  readonly log: Logger;
  /** Server services besides reads and writes: binding, eviction, metrics, the PKI, in-process admission. */
  readonly services: ClientServices;
  private readonly identities = new Map<string, Client>();

  /** Use `clientFor(registryView)`; `resolver` is shared by the clients of one registry. */
  constructor(private readonly reg: Registry, private readonly resolver: Resolver) {
    this.clock = reg.clock;
    this.log = reg.log;
    this.services = new ClientServices(reg);
  }

  /** The same client acting as another identity (a node's kubelet, say); made once per identity. */
  as(user: UserInfo, component?: ComponentInfo): Client {
    const key = `${user.username}\u0000${(user.groups ?? []).join(',')}\u0000${component?.userAgent ?? ''}`;
    let c = this.identities.get(key);
    if (!c) {
      c = new Client(this.reg.as(user, component), this.resolver);
      // Bounded: identities are components and nodes, but a runaway caller must not grow this forever.
      if (this.identities.size >= 10_000) this.identities.clear();
      this.identities.set(key, c);
    }
    return c;
  }

  /** The resource `ref` names, or undefined when it is not served (yet: custom resources come and go). */
  resource(ref: ResourceRef): ResourceDef | undefined {
    return this.resolver.find(ref);
  }

  /** The resource serving a kind (`apps`, `Deployment`): what an ownerReference or a scale target names. */
  resourceForKind(group: string, kind: string): ResourceDef | undefined {
    return this.reg.findByKind(group, kind);
  }

  /** Every resource the registry serves. */
  resources(): readonly ResourceDef[] {
    return this.reg.defs;
  }

  /** The resource stored under a storage key (`apps/replicasets`), as a Change's `resource` names it. */
  resourceForKey(key: string): ResourceDef | undefined {
    return this.reg.defForKey(key);
  }

  /** The storage key a resource's objects live under (`core/pods`, as a Change's `resource` names it), if served. */
  storageKeyOf(ref: ResourceRef): string | undefined {
    return this.resolver.key(ref);
  }

  /** The storage keys that hold objects (or once did). */
  storedResources(): string[] {
    return this.reg.store.resources();
  }

  // ---- reads (from the cache: shared objects, never mutate them) ----

  /** This server's value of a piece of per-server state (see util/server-slot.ts). */
  state<T>(slot: ServerSlot<T>): T {
    return this.reg.state(slot);
  }

  /**
   * The current object, or undefined. `namespace` is '' for cluster-scoped resources. A built-in resource named by
   * its reference (`'v1/pods'`) reads as its generated type (src/generated/k8s, from the 1.35 OpenAPI).
   */
  get<R extends BuiltinRef>(res: R, namespace: string, name: string): BuiltinResources[R] | undefined;
  get<T = KObject>(res: ResourceRef, namespace: string, name: string): T | undefined;
  get<T = KObject>(res: ResourceRef, namespace: string, name: string): T | undefined {
    const key = this.resolver.key(res);
    return key === undefined ? undefined : (this.reg.store.get(key, namespace, name) as T | undefined);
  }

  /** Objects in key order (namespace, then name); `namespace` undefined lists all namespaces. */
  list<R extends BuiltinRef>(res: R, namespace?: string, opts?: ClientListOptions): Array<BuiltinResources[R]>;
  list<T = KObject>(res: ResourceRef, namespace?: string, opts?: ClientListOptions): T[];
  list<T = KObject>(res: ResourceRef, namespace?: string, opts?: ClientListOptions): T[] {
    const key = this.resolver.key(res);
    if (key === undefined) return [];
    const all = this.reg.store.list(key, namespace);
    if (!opts?.labelSelector) return all as T[];
    const sel = typeof opts.labelSelector === 'string' ? parseLabelSelector(opts.labelSelector) : opts.labelSelector;
    return all.filter((o) => matchesSelector(sel, o.metadata.labels)) as T[];
  }

  /** An object by storage key (`apps/replicasets`, as a Change's `resource` names it), served or not. */
  getByKey(key: string, namespace: string, name: string): KObject | undefined {
    return this.reg.store.get(key, namespace, name);
  }

  /** Objects by storage key, in key order; `namespace` undefined means all. */
  listByKey(key: string, namespace?: string): KObject[] {
    return this.reg.store.list(key, namespace);
  }

  /** How many objects of the resource exist. */
  count(res: ResourceRef): number {
    const key = this.resolver.key(res);
    return key === undefined ? 0 : this.reg.store.count(key);
  }

  /** The store's current revision: it moves on every write (a cheap "did anything change since" test). */
  revision(): number {
    return this.reg.store.revision();
  }

  /** Resolves once every write made so far is committed and its change delivered; undefined when none is pending. */
  pendingCommit(): Promise<void> | undefined {
    return this.reg.store.hasPending() ? this.reg.store.committed() : undefined;
  }

  // ---- writes (the registry pipeline: defaults, validation, admission, concurrency) ----

  /**
   * Creates through the whole pipeline, admission webhooks included, as every create is admitted upstream. The write
   * itself happens before this returns when nothing has to wait (no webhook is called, the store applies writes in
   * this process: a later read in the same turn sees it); the Promise carries the stored object, or the refusal.
   */
  create<R extends BuiltinRef>(res: R, namespace: string, obj: BuiltinResources[R], opts?: WriteOptions): Promise<BuiltinResources[R]>;
  create<T = KObject>(res: ResourceRef, namespace: string, obj: T, opts?: WriteOptions): Promise<T>;
  async create<T = KObject>(res: ResourceRef, namespace: string, obj: T, opts?: WriteOptions): Promise<T> {
    return (await this.reg.create(this.resolver.def(res), namespace, obj as KObject, opts)) as T;
  }

  // Updates and deletes go through the same pipeline as `create`, webhooks included: the write happens before the call
  // returns when nothing has to wait; the Promise carries the result, or the refusal (404, 409, 422, a webhook's
  // denial), which the caller must handle.

  /** Replaces the object (its resourceVersion, when set, must be current). */
  update<R extends BuiltinRef>(res: R, namespace: string, name: string, obj: BuiltinResources[R], opts?: WriteOptions): Promise<BuiltinResources[R]>;
  update<T = KObject>(res: ResourceRef, namespace: string, name: string, obj: T, opts?: WriteOptions): Promise<T>;
  async update<T = KObject>(res: ResourceRef, namespace: string, name: string, obj: T, opts?: WriteOptions): Promise<T> {
    return (await this.reg.update(this.resolver.def(res), namespace, name, () => obj as KObject, opts)) as T;
  }

  /** Replaces the object's status (the status subresource). */
  updateStatus<R extends BuiltinRef>(res: R, namespace: string, name: string, obj: BuiltinResources[R], opts?: WriteOptions): Promise<BuiltinResources[R]>;
  updateStatus<T = KObject>(res: ResourceRef, namespace: string, name: string, obj: T, opts?: WriteOptions): Promise<T>;
  async updateStatus<T = KObject>(res: ResourceRef, namespace: string, name: string, obj: T, opts?: WriteOptions): Promise<T> {
    return (await this.reg.update(this.resolver.def(res), namespace, name, () => obj as KObject, { ...opts, subresource: 'status' })) as T;
  }

  /** Applies `mutate` to a copy of the current object and writes it back, retrying on conflicts. */
  async guaranteedUpdate<T = KObject>(res: ResourceRef, namespace: string, name: string, mutate: (current: KObject) => KObject, opts?: WriteOptions): Promise<T> {
    return (await this.reg.update(this.resolver.def(res), namespace, name, mutate, opts)) as T;
  }

  /**
   * As `guaranteedUpdate`, but answers as the registry's `update` does: at once (not a Promise; a refusal is thrown)
   * when nothing had to wait (no webhook, a store that applies writes in this process), for a writer whose next step
   * must follow in the same turn (leader election's renewals, a kubelet's status report). Webhooks see the write all
   * the same.
   */
  updateNowOrWait<T = KObject>(res: ResourceRef, namespace: string, name: string, mutate: (current: KObject) => KObject, opts?: WriteOptions): T | Promise<T> {
    return this.reg.update(this.resolver.def(res), namespace, name, mutate, opts) as T | Promise<T>;
  }

  async delete(res: ResourceRef, namespace: string, name: string, opts?: DeleteOptions): Promise<{ object: KObject; deleted: boolean }> {
    return this.reg.delete(this.resolver.def(res), namespace, name, opts);
  }

  /**
   * Finishes a Terminating namespace as the namespace registry does once its `kubernetes` finalizer is gone:
   * writes the remaining spec finalizers, or removes the namespace when none (and no metadata finalizer) is left.
   */
  async finalizeNamespace(name: string, finalizers: string[]): Promise<void> {
    // An update of the finalize subresource through the whole pipeline (admission, validation, audit): the registry
    // removes the namespace when it leaves nothing holding it.
    try {
      await this.reg.update(this.resolver.def('v1/namespaces'), '', name, (cur) => ({ ...cur, spec: { finalizers } }), { subresource: 'finalize', pure: true });
    } catch (e) {
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }

  // ---- watches ----

  /**
   * Calls `listener` with every committed change of the resource from now on (after the commit, in revision order);
   * returns the unsubscribe function. A `trigger` narrows it to objects whose indexed field has one value.
   */
  watch(res: ResourceRef, listener: ChangeListener, trigger?: WatchTrigger): () => void {
    const key = this.resolver.key(res);
    if (key === undefined) return () => {};
    return this.reg.onChange(key, listener, trigger);
  }

  /** Every committed change of every resource (the garbage collector's view). */
  watchAll(listener: ChangeListener): () => void {
    return this.reg.onChange('*', listener);
  }

  /** A cache of the resource with named indexes, kept from the change feed; stop it when done. */
  informer<T = KObject>(res: ResourceRef, opts: InformerOptions<T> = {}): Informer<T> {
    return new Informer<T>(this.reg.store, storageKey(this.resolver.def(res)), opts);
  }
}
