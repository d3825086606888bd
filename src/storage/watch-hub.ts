// In-process fan-out of committed changes, in revision order, per resource and for all resources. The store
// publishes each group commit as one batch; listeners that write to sockets defer their writes to its end.
import type { KObject } from '../machinery/types.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface Change {
  type: ChangeType;
  resource: string;
  rv: number;
  object: KObject;
  /** For MODIFIED and DELETED: the state before the change, when known (used for selector transitions). */
  previous?: KObject;
}

export type ChangeListener = (change: Change) => void;

/**
 * Narrows a subscription to changes whose object (or previous state) has `value` for the indexed field `of`, as
 * the cacher's indexed triggers do for pods' spec.nodeName: a kubelet's watch costs nothing for other nodes' pods.
 * `of` must be the same function for every subscription on that field; a missing field reads as ''.
 */
export interface Trigger {
  of: (obj: KObject) => string | undefined;
  value: string;
}

export class WatchHub {
  private readonly byResource = new Map<string, Set<ChangeListener>>();
  private readonly all = new Set<ChangeListener>();
  /** resource -> indexed field -> value -> listeners. */
  private readonly triggered = new Map<string, Map<Trigger['of'], Map<string, Set<ChangeListener>>>>();
  /** Callbacks to run once the batch being published has been delivered to every listener. */
  private batchEnd = new Set<() => void>();
  private publishing = false;
  /**
   * Told about a listener that threw (or a batch-end callback, with the batch's last change); the others and
   * later changes are delivered regardless.
   */
  onListenerError: (err: unknown, change: Change) => void = () => {};

  subscribe(resource: string | '*', listener: ChangeListener, trigger?: Trigger): () => void {
    if (trigger && resource !== '*') return this.subscribeTriggered(resource, listener, trigger);
    if (resource === '*') {
      this.all.add(listener);
      return () => this.all.delete(listener);
    }
    let set = this.byResource.get(resource);
    if (!set) this.byResource.set(resource, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (!set.size && this.byResource.get(resource) === set) this.byResource.delete(resource);
    };
  }

  private subscribeTriggered(resource: string, listener: ChangeListener, { of, value }: Trigger): () => void {
    let byField = this.triggered.get(resource);
    if (!byField) this.triggered.set(resource, (byField = new Map()));
    let byValue = byField.get(of);
    if (!byValue) byField.set(of, (byValue = new Map()));
    let set = byValue.get(value);
    if (!set) byValue.set(value, (set = new Set()));
    set.add(listener);
    const [fields, values, listeners] = [byField, byValue, set];
    return () => {
      listeners.delete(listener);
      if (listeners.size || values.get(value) !== listeners) return;
      values.delete(value);
      if (values.size || fields.get(of) !== values) return;
      fields.delete(of);
      if (!fields.size && this.triggered.get(resource) === fields) this.triggered.delete(resource);
    };
  }

  /** Publishes one change as a batch of its own. */
  publish(change: Change): void {
    this.publishBatch([change]);
  }

  /** Delivers `changes` in order to every listener, then runs the callbacks registered with atBatchEnd. */
  publishBatch(changes: readonly Change[]): void {
    const outer = this.publishing;
    this.publishing = true;
    try {
      for (const change of changes) {
        const set = this.byResource.get(change.resource);
        if (set) for (const l of [...set]) this.deliver(l, change);
        const byField = this.triggered.get(change.resource);
        if (byField) for (const [of, byValue] of byField) this.deliverTriggered(of, byValue, change);
        if (this.all.size) for (const l of [...this.all]) this.deliver(l, change);
      }
    } finally {
      this.publishing = outer;
    }
    if (!outer && changes.length) this.endBatch(changes[changes.length - 1]);
  }

  /**
   * Runs `fn` once when the batch being published ends (registering the same function twice runs it once);
   * outside a batch, at once. The hub keeps no reference to `fn` afterwards.
   */
  atBatchEnd(fn: () => void): void {
    if (this.publishing) this.batchEnd.add(fn);
    else fn();
  }

  private endBatch(last: Change): void {
    // Callbacks registered while these run belong to the next round.
    while (this.batchEnd.size) {
      const fns = this.batchEnd;
      this.batchEnd = new Set();
      for (const fn of fns) {
        try {
          fn();
        } catch (err) {
          this.onListenerError(err, last);
        }
      }
    }
  }

  /** To the listeners of the object's value and, when it differs, of the previous state's (it may leave their selection). */
  private deliverTriggered(of: Trigger['of'], byValue: Map<string, Set<ChangeListener>>, change: Change): void {
    const now = of(change.object) ?? '';
    const now$ = byValue.get(now);
    if (now$) for (const l of [...now$]) this.deliver(l, change);
    if (!change.previous) return;
    const before = of(change.previous) ?? '';
    const before$ = before === now ? undefined : byValue.get(before);
    if (before$) for (const l of [...before$]) this.deliver(l, change);
  }

  private deliver(listener: ChangeListener, change: Change): void {
    try {
      listener(change);
    } catch (err) {
      this.onListenerError(err, change);
    }
  }

  count(): number {
    let n = this.all.size;
    for (const s of this.byResource.values()) n += s.size;
    for (const byField of this.triggered.values()) for (const byValue of byField.values()) for (const s of byValue.values()) n += s.size;
    return n;
  }

  clear(): void {
    this.byResource.clear();
    this.all.clear();
    this.triggered.clear();
    this.batchEnd.clear();
  }
}
