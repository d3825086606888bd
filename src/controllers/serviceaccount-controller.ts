// Every active namespace gets a `default` ServiceAccount.
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from './runtime/work-queue.js';

export class ServiceAccountController {
  private readonly queue: WorkQueue;
  private readonly stops: Array<() => void> = [];

  constructor(private readonly client: Client, clock: Clock, log: Logger) {
    this.queue = new WorkQueue('serviceaccount', (ns) => this.reconcile(ns), clock, log);
    this.stops.push(client.watch('v1/namespaces', (c) => c.type !== 'DELETED' && this.queue.add(c.object.metadata.name ?? '')));
    this.stops.push(client.watch('v1/serviceaccounts', (c) => c.type === 'DELETED' && this.queue.add(c.object.metadata.namespace ?? '')));
    for (const ns of client.list('v1/namespaces')) this.queue.add(ns.metadata.name ?? '');
  }

  private reconcile(namespace: string): void {
    const ns = this.client.get('v1/namespaces', '', namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    if (this.client.get('v1/serviceaccounts', namespace, 'default')) return;
    const def = this.client.resource('v1/serviceaccounts')!;
    try {
      this.client.create(def, namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
    } catch {
      /* created meanwhile or namespace terminating */
    }
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
  }
}
