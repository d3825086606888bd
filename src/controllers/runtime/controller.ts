// controller-runtime's builder: a controller is declared by what it reconciles (`for`), the objects it controls
// (`owns`: a change enqueues their controller), other sources mapped to keys (`watches`) and `reconcile(key)`. The
// manager wires it to the shared informers and a rate-limited work queue. Reconciles are level-triggered: they read
// the current state by key, never the event that queued them.
import type { Client } from '../../client/client.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { Change, ResourceRef } from '../../client/types.js';
import { keyFor, keyOf } from '../../machinery/object-key.js';
import { parseApiVersion } from '../../machinery/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { WorkQueue, type ReconcileResult, type WorkQueueOptions } from '../../util/work-queue.js';
import { controllerRef } from '../workload/owner.js';
import type { SharedInformers } from './informers.js';

export type { ReconcileResult };

/** A source: a resource and, optionally, which of its changes count. */
export interface Source {
  resource: ResourceRef;
  /** Whether a change (the first list's objects arrive as ADDED) enqueues anything; default all. */
  when?: (c: Change) => boolean;
}

/**
 * controller-runtime's GenerationChangedPredicate: additions, deletions and spec changes pass; a write that leaves
 * metadata.generation as it was (status, labels) does not (nor is it dropped when the previous state is unknown).
 */
export const generationChanged = (c: Change): boolean =>
  c.type !== 'MODIFIED' || !c.previous || c.previous.metadata.generation !== c.object.metadata.generation;

/** A source whose changes map to keys of the reconciled resource (controller-runtime's EnqueueRequestsFromMapFunc). */
export interface WatchSource extends Source {
  map: (c: Change, ctx: ControllerContext) => Iterable<string>;
}

/** What a controller gets when it starts. */
export interface ControllerContext {
  readonly name: string;
  /** A client acting as the controller's identity. */
  readonly client: Client;
  readonly clock: Clock;
  readonly log: Logger;
  /** The manager's shared informers (add the indexes the controller reads). */
  readonly informers: SharedInformers;
  /** The controller's queue, for keys a reconciler schedules itself. */
  readonly queue: Pick<WorkQueue, 'add' | 'addAfter'>;
  /** The controller's event recorder for a source component (one per component, shared by its reconciler and mappers). */
  recorder(component: string): EventRecorder;
}

export interface Reconciler {
  reconcile(key: string): ReconcileResult | Promise<ReconcileResult>;
  stop?(): void;
}

interface Common {
  /** The controller's name (kube-controller-manager's, or the add-on's). */
  name: string;
  /** Whose client and logger it uses when not its own name's (a controller's helper queue acts as the controller). */
  identity?: string;
  /** The reconciled resource: each change enqueues the object's `namespace/name`, and every object is queued at start. */
  for?: ResourceRef | Source;
  /** Resources whose objects the reconciled kind (its group and kind) controls: a change enqueues that controller (now and before). */
  owns?: Array<ResourceRef | Source>;
  /** Other sources mapped to keys. */
  watches?: WatchSource[];
  /** The keys queued at start instead of every object of `for`. */
  initialKeys?: (ctx: ControllerContext) => Iterable<string>;
  /** Backoff and overall rate limit of the queue. */
  queue?: WorkQueueOptions;
}

/** A controller: stateless `reconcile(key, ctx)`, or `setup(ctx)` making a reconciler with state (and a stop). */
export type ControllerDef = Common & ({ reconcile: (key: string, ctx: ControllerContext) => ReconcileResult | Promise<ReconcileResult> } | { setup: (ctx: ControllerContext) => Reconciler });

/** Declares a controller (nothing runs until a manager starts it). */
export function defineController<D extends ControllerDef>(def: D): D {
  return def;
}

/** One started controller: its queue, reconciler and informer subscriptions. */
export class RunningController {
  readonly queue: WorkQueue;
  readonly reconciler: Reconciler;
  private readonly stops: Array<() => void> = [];

  constructor(readonly def: ControllerDef, client: Client, clock: Clock, log: Logger, informers: SharedInformers) {
    let reconciler: Reconciler | undefined;
    this.queue = new WorkQueue(def.name, (key) => reconciler!.reconcile(key), clock, log, def.queue);
    const recorders = new Map<string, EventRecorder>();
    const recorder = (component: string) => {
      let r = recorders.get(component);
      if (!r) recorders.set(component, (r = new EventRecorder(client, { component })));
      return r;
    };
    const ctx: ControllerContext = { name: def.name, client, clock, log, informers, queue: this.queue, recorder };
    if ('setup' in def) reconciler = def.setup(ctx);
    else {
      const fn = def.reconcile;
      reconciler = { reconcile: (key) => fn(key, ctx) };
    }
    this.reconciler = reconciler;
    const primary = def.for === undefined ? undefined : asSource(def.for);
    if (primary) this.listen(informers, primary, (c) => [keyOf(c.object)]);
    if (def.owns?.length) {
      if (!primary) throw new Error(`controller ${def.name}: owns needs for`);
      const owner = client.resource(primary.resource);
      if (!owner) throw new Error(`controller ${def.name}: no resource ${String(primary.resource)}`);
      for (const owned of def.owns) this.listen(informers, asSource(owned), (c) => ownerKeys(c, owner.group, owner.kind));
    }
    for (const w of def.watches ?? []) this.listen(informers, w, (c) => w.map(c, ctx));
    const initial = def.initialKeys ? def.initialKeys(ctx) : primary ? initialKeysOf(informers, primary) : [];
    for (const key of initial) this.queue.add(key);
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.stops.length = 0;
    this.queue.stop();
    this.reconciler.stop?.();
  }

  private listen(informers: SharedInformers, source: Source, keys: (c: Change) => Iterable<string>): void {
    // A resource this server does not serve (an API group turned off) has nothing to tell, as a watch of it.
    if (!informers.serves(source.resource)) return;
    const when = source.when;
    this.stops.push(informers.informer(source.resource).onChange((c) => {
      if (when && !when(c)) return;
      for (const key of keys(c)) this.queue.add(key);
    }));
  }
}

const asSource = (s: ResourceRef | Source): Source => (typeof s === 'object' && 'resource' in s ? s : { resource: s });

/** The keys of the controllers of group/kind a change of an owned object concerns: its controller now and before. */
function ownerKeys(c: Change, group: string, kind: string): string[] {
  const keys: string[] = [];
  for (const ref of [controllerRef(c.object), c.previous && controllerRef(c.previous)]) {
    if (ref && ref.kind === kind && parseApiVersion(ref.apiVersion).group === group) {
      const key = keyFor(c.object.metadata.namespace, ref.name);
      if (!keys.includes(key)) keys.push(key);
    }
  }
  return keys;
}

function* initialKeysOf(informers: SharedInformers, primary: Source): Iterable<string> {
  if (!informers.serves(primary.resource)) return;
  const informer = informers.informer(primary.resource);
  for (const object of informer.list()) {
    if (!primary.when || primary.when({ type: 'ADDED', resource: informer.resource, rv: 0, object })) yield keyOf(object);
  }
}
