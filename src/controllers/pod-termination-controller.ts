// Finishes graceful pod deletion: once a terminating pod's grace period has passed (and no finalizer holds it),
// the pod is removed. This stands in for the kubelet's final confirmation until simulated kubelets exist.
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { WorkQueue } from './runtime/work-queue.js';

export class PodTerminationController {
  private readonly queue: WorkQueue;
  private readonly unsubscribe: () => void;

  constructor(private readonly reg: Registry, private readonly clock: Clock, log: Logger) {
    this.queue = new WorkQueue('pod-termination', (key) => this.reconcile(key), clock, log);
    const enqueue = (o: { metadata: { namespace?: string; name?: string; deletionTimestamp?: string } }) => {
      if (o.metadata.deletionTimestamp) this.queue.add(`${o.metadata.namespace}/${o.metadata.name}`);
    };
    this.unsubscribe = reg.store.hub.subscribe('core/pods', (c) => c.type !== 'DELETED' && enqueue(c.object));
    for (const p of reg.store.list('core/pods')) enqueue(p);
  }

  private reconcile(key: string): void | number {
    const [namespace, name] = key.split('/');
    const pod = this.reg.store.get('core/pods', namespace, name);
    const at = pod?.metadata.deletionTimestamp;
    if (!pod || !at || pod.metadata.finalizers?.length) return;
    const wait = Date.parse(at) - this.clock.nowMs();
    if (wait > 0) return wait;
    const def = this.reg.find('', 'v1', 'pods')!;
    this.reg.delete(def, namespace, name, { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid } });
  }

  stop(): void {
    this.unsubscribe();
    this.queue.stop();
  }
}
