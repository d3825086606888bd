// Every active namespace gets a `default` ServiceAccount.
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from './runtime/work-queue.js';

export class ServiceAccountController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly reg: Registry, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('serviceaccount', (ns) => this.reconcile(ns), clock, log);
    this.stops.push(reg.store.hub.subscribe('core/namespaces', (c) => c.type !== 'DELETED' && this.queue.add(c.object.metadata.name ?? '')));
    this.stops.push(reg.store.hub.subscribe('core/serviceaccounts', (c) => c.type === 'DELETED' && this.queue.add(c.object.metadata.namespace ?? '')));
    for (const ns of reg.store.list('core/namespaces')) this.queue.add(ns.metadata.name ?? '');
  }

  private reconcile(namespace: string): void {
    const ns = this.reg.store.get('core/namespaces', '', namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    if (this.reg.store.get('core/serviceaccounts', namespace, 'default')) return;
    const def = this.reg.find('', 'v1', 'serviceaccounts')!;
    try {
      this.reg.create(def, namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
    } catch {
      /* created meanwhile or namespace terminating */
    }
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
