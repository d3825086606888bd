// Namespace deletion: a Terminating namespace has its contents deleted, then its finalizer removed, then it is gone.
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from '../util/work-queue.js';

export class NamespaceController {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;

  constructor(private readonly client: Client, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('namespace', (name) => this.reconcile(name), clock, log);
    this.unsubscribe = client.watch('v1/namespaces', (c) => {
      if (c.type !== 'DELETED' && c.object.metadata.deletionTimestamp) this.queue.add(c.object.metadata.name ?? '');
    });
    for (const ns of client.list('v1/namespaces')) if (ns.metadata.deletionTimestamp) this.queue.add(ns.metadata.name ?? '');
  }

  private reconcile(name: string): void | number {
    const ns = this.client.get('v1/namespaces', '', name) as unknown as Namespace | undefined;
    if (!ns?.metadata?.deletionTimestamp) return;
    let remaining = 0;
    for (const def of this.client.resources()) {
      if (!def.namespaced || def.sharedStorage || def.virtualCreate) continue;
      for (const o of this.client.list(def, name)) {
        remaining++;
        if (o.metadata.deletionTimestamp) continue;
        try {
          this.client.delete(def, name, o.metadata.name ?? '', { propagationPolicy: 'Background' });
        } catch {
          /* already going */
        }
      }
    }
    if (remaining > 0) {
      // Check again shortly; deletions with finalizers or grace periods take a while.
      let left = 0;
      for (const def of this.client.resources()) if (def.namespaced && !def.sharedStorage && !def.virtualCreate) left += this.client.list(def, name).length;
      if (left > 0) return 500;
    }
    const cur = this.client.get<Namespace>('v1/namespaces', '', name);
    if (!cur) return;
    this.client.finalizeNamespace(name, (cur.spec?.finalizers ?? []).filter((f) => f !== 'kubernetes'));
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
