// NoExecute taints: pods on a node with a NoExecute taint they do not tolerate are deleted at once; pods that
// tolerate it for tolerationSeconds are deleted when that time has passed. Upstream: pkg/controller/tainteviction.
// A pod's key is reconciled on its changes and on its node's NoExecute taints changing; the deletion is due
// `tolerationSeconds` after the pod was first found tainted, and the reconcile is requeued for that moment.
import type { Node, Pod, Taint } from '../generated/k8s/core/v1.js';
import type { Change } from '../client/types.js';
import { keyOf, splitKey } from '../machinery/object-key.js';
import { evictionDelayMs } from '../machinery/conditions.js';
import { rfc3339 } from '../util/clock.js';
import { defineController, indexes, indexNames, type ControllerContext, type Reconciler } from './runtime/index.js';
import { nodeTaints } from './node-taints.js';

const component = 'taint-eviction-controller';
const podIndexes = { [indexNames.byNode]: indexes.byNode };

const noExecute = (node: Node | undefined): Taint[] => nodeTaints(node).filter((t) => t.effect === 'NoExecute');

/** Whether a node change moves its NoExecute taints (an unknown previous state counts as a move). */
function noExecuteChanged(c: Change): boolean {
  const now = c.type === 'DELETED' ? [] : noExecute(c.object as Node);
  const before = c.type === 'ADDED' ? [] : c.type === 'DELETED' ? noExecute(c.object as Node) : c.previous ? noExecute(c.previous as Node) : undefined;
  return before === undefined || JSON.stringify(before) !== JSON.stringify(now);
}

export const taintEvictionController = defineController({
  name: 'taint-eviction',
  for: 'v1/pods',
  watches: [{
    resource: 'v1/nodes',
    when: noExecuteChanged,
    map: (c, { informers }) => informers.informer<Pod>('v1/pods', podIndexes).byIndex(indexNames.byNode, c.object.metadata.name ?? '').map(keyOf),
  }],
  setup: (ctx) => new TaintEviction(ctx),
});

interface Work {
  uid: string;
  /** When the pod was first found on a tainted node (clock ms). */
  createdAt: number;
  /** When its deletion is due. */
  fireAt: number;
}

class TaintEviction implements Reconciler {
  /** Pods due for deletion, by key. */
  private readonly work = new Map<string, Work>();

  constructor(private readonly ctx: ControllerContext) {
    ctx.informers.informer<Pod>('v1/pods', podIndexes);
  }

  reconcile(key: string): number | void | Promise<number | void> {
    const { namespace, name } = splitKey(key);
    const pod = this.ctx.client.get('v1/pods', namespace, name);
    const nodeName = pod?.spec?.nodeName;
    if (!pod || !nodeName || pod.metadata.deletionTimestamp) return this.cancel(key, pod, false);
    const taints = noExecute(this.ctx.client.get('v1/nodes', '', nodeName));
    if (!taints.length) return this.cancel(key, pod, true);
    const delay = evictionDelayMs(taints, pod.spec?.tolerations ?? []);
    if (delay < 0) return this.cancel(key, pod, true);
    return this.due(key, pod, delay);
  }

  stop(): void {
    this.work.clear();
  }

  /** Deletion `afterMs` from when the pod was first found tainted (an earlier due time wins): now, or how long to wait. */
  private async due(key: string, pod: Pod, afterMs: number): Promise<number | void> {
    const now = this.ctx.clock.nowMs();
    const uid = pod.metadata.uid ?? '';
    let w = this.work.get(key);
    if (!w || w.uid !== uid) this.work.set(key, (w = { uid, createdAt: now, fireAt: now + afterMs }));
    else w.fireAt = Math.min(w.fireAt, w.createdAt + afterMs);
    if (now < w.fireAt) return w.fireAt - now;
    this.work.delete(key);
    await this.evict(key, pod);
  }

  private cancel(key: string, pod: Pod | undefined, withEvent: boolean): void {
    const w = this.work.get(key);
    if (!w) return;
    this.work.delete(key);
    if (withEvent && pod && w.uid === pod.metadata.uid) this.ctx.recorder(component).event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  private async evict(key: string, pod: Pod): Promise<void> {
    const { client, clock, log } = this.ctx;
    const { namespace, name } = splitKey(key);
    this.ctx.recorder(component).event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    const stamp = rfc3339(clock.now());
    try {
      await client.guaranteedUpdate('v1/pods', namespace, name, (cur) => {
        const st = (cur.status ?? {}) as NonNullable<Pod['status']>;
        const conditions = (st.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
        conditions.push({ type: 'DisruptionTarget', status: 'True', lastTransitionTime: stamp, reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' });
        return { ...cur, status: { ...st, conditions } };
      }, { subresource: 'status' });
      await client.delete('v1/pods', namespace, name, { preconditions: { uid: pod.metadata.uid } });
    } catch (err) {
      log.debug({ err, pod: key }, 'taint eviction failed');
    }
  }
}
