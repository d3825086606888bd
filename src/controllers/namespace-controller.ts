// Namespace deletion: a Terminating namespace has its contents deleted, then its finalizer removed, then it is gone.
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { Registry } from '../registry/registry.js';
import { storageKey } from '../registry/resource.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from './runtime/work-queue.js';

export class NamespaceController {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;

  constructor(private readonly reg: Registry, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('namespace', (name) => this.reconcile(name), clock, log);
    this.unsubscribe = reg.store.hub.subscribe('core/namespaces', (c) => {
      if (c.type !== 'DELETED' && c.object.metadata.deletionTimestamp) this.queue.add(c.object.metadata.name ?? '');
    });
    for (const ns of reg.store.list('core/namespaces')) if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name ?? '');
  }

  private reconcile(name: string): void | number {
    const ns = this.reg.store.get('core/namespaces', '', name) as unknown as Namespace | undefined;
    if (!ns?.metadata?.deletionTimestamp) return;
    let remaining = 0;
    for (const def of this.reg.defs) {
      if (!def.namespaced || def.sharedStorage || def.virtualCreate) continue;
      for (const o of this.reg.store.list(storageKey(def), name)) {
        remaining++;
        if (o.metadata.deletionTimestamp) continue;
        try {
          this.reg.delete(def, name, o.metadata.name ?? '', { propagationPolicy: 'Background' });
        } catch {
          /* already going */
        }
      }
    }
    if (remaining > 0) {
      // Check again shortly; deletions with finalizers or grace periods take a while.
      let left = 0;
      for (const def of this.reg.defs) if (def.namespaced && !def.sharedStorage && !def.virtualCreate) left += this.reg.store.list(storageKey(def), name).length;
      if (left > 0) return 500;
    }
    const cur = this.reg.store.get('core/namespaces', '', name);
    if (!cur) return;
    const spec = (cur.spec ?? {}) as { finalizers?: string[] };
    const finalizers = (spec.finalizers ?? []).filter((f) => f !== 'kubernetes');
    if (!finalizers.length && !cur.metadata.finalizers?.length) this.reg.store.delete('core/namespaces', '', name);
    else if (finalizers.length !== (spec.finalizers ?? []).length) this.reg.store.update('core/namespaces', { ...cur, spec: { ...spec, finalizers } });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
