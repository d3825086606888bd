// In-process fan-out of committed changes, in revision order, per resource and for all resources.
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

export class WatchHub {
  private readonly byResource = new Map<string, Set<ChangeListener>>();
  private readonly all = new Set<ChangeListener>();
  /** Told about a listener that threw; the other listeners and later changes are delivered regardless. */
  onListenerError: (err: unknown, change: Change) => void = () => {};

  subscribe(resource: string | '*', listener: ChangeListener): () => void {
    if (resource === '*') {
      this.all.add(listener);
      return () => this.all.delete(listener);
    }
    let set = this.byResource.get(resource);
    if (!set) this.byResource.set(resource, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  publish(change: Change): void {
    const set = this.byResource.get(change.resource);
    if (set) for (const l of [...set]) this.deliver(l, change);
    for (const l of [...this.all]) this.deliver(l, change);
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
    return n;
  }

  clear(): void {
    this.byResource.clear();
    this.all.clear();
  }
}
