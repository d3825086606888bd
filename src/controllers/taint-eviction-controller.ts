// NoExecute taints: pods on a node with a NoExecute taint they do not tolerate are deleted at once; pods that
// tolerate it for tolerationSeconds are deleted when that time has passed. Upstream: pkg/controller/tainteviction.
import type { Pod, Taint, Toleration } from '../generated/k8s/core/v1.js';
import { EventRecorder } from '../client/event-recorder.js';
import type { KObject } from '../machinery/types.js';
import type { Client } from '../client/client.js';
import { rfc3339, type Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { tolerates } from '../machinery/conditions.js';
import { nodeTaints } from './node-taints.js';
import { byNode, podsByNode } from './pods-by-node.js';
import type { Informer } from '../client/informer.js';

interface Work {
  uid: string;
  createdAt: number;
  fireAt: number;
  cancel: () => void;
}

/** The shortest tolerationSeconds among the tolerations used, 0 for none given as <= 0, -1 when all are forever. */
export function minTolerationMs(used: Toleration[]): number {
  if (!used.length) return 0;
  let min = Infinity;
  for (const t of used) {
    if (t.tolerationSeconds === undefined || t.tolerationSeconds === null) continue;
    if (t.tolerationSeconds <= 0) return 0;
    min = Math.min(min, t.tolerationSeconds * 1000);
  }
  return min === Infinity ? -1 : min;
}

export class TaintEvictionController {
  private readonly work = new Map<string, Work>();
  /** Each node's NoExecute taints as last seen (JSON), to notice changes. */
  private readonly seen = new Map<string, string>();
  /** Pods by node name. */
  private readonly pods: Informer;
  private readonly events: EventRecorder;
  private readonly unsubscribe: () => void;

  constructor(private readonly client: Client, private readonly clock: Clock, private readonly log: Logger) {
    this.events = new EventRecorder(client, { component: 'taint-eviction-controller' });
    this.pods = podsByNode(client);
    this.pods.onChange((c) => {
      if (c.type === 'DELETED') this.cancel(c.object, false);
      else this.processPod(c.object);
    });
    this.unsubscribe = client.watch('v1/nodes', (c) => {
      const name = c.object.metadata.name ?? '';
      const node = c.type === 'DELETED' ? undefined : this.client.get('v1/nodes', '', name);
      this.nodeChanged(name, node);
    });
    for (const n of client.list('v1/nodes')) this.nodeChanged(n.metadata.name ?? '', n);
  }

  private noExecute(node: KObject | undefined): Taint[] {
    return nodeTaints(node).filter((t) => t.effect === 'NoExecute');
  }

  private nodeChanged(name: string, node: KObject | undefined): void {
    const taints = this.noExecute(node);
    const key = JSON.stringify(taints);
    if ((this.seen.get(name) ?? '[]') === key) return;
    if (taints.length) this.seen.set(name, key);
    else this.seen.delete(name);
    for (const pod of this.pods.byIndex(byNode, name)) this.processPod(pod);
  }

  private processPod(pod: KObject): void {
    const p = pod as Pod;
    const nodeName = p.spec?.nodeName;
    if (!nodeName || p.metadata?.deletionTimestamp) return this.cancel(pod, false);
    const taints = this.noExecute(this.client.get('v1/nodes', '', nodeName));
    if (!taints.length) return this.cancel(pod, true);
    const tolerations = p.spec?.tolerations ?? [];
    const used: Toleration[] = [];
    for (const taint of taints) {
      const t = tolerations.find((x) => tolerates(x, taint));
      if (!t) {
        this.schedule(pod, 0);
        return;
      }
      used.push(t);
    }
    const min = minTolerationMs(used);
    if (min < 0) return this.cancel(pod, true);
    this.schedule(pod, min);
  }

  private keyOf(pod: KObject): string {
    return `${pod.metadata.namespace}/${pod.metadata.name}`;
  }

  /** Schedules deletion `afterMs` from when the pod was first found tainted (an earlier schedule wins). */
  private schedule(pod: KObject, afterMs: number): void {
    const key = this.keyOf(pod);
    const now = this.clock.nowMs();
    const existing = this.work.get(key);
    if (existing && existing.uid === pod.metadata.uid) {
      if (existing.createdAt + afterMs >= existing.fireAt) return;
      existing.cancel();
    }
    const createdAt = existing && existing.uid === pod.metadata.uid ? existing.createdAt : now;
    const fireAt = createdAt + afterMs;
    const uid = pod.metadata.uid ?? '';
    const cancel = this.clock.setTimeout(() => this.fire(key, uid), Math.max(0, fireAt - now));
    this.work.set(key, { uid, createdAt, fireAt, cancel });
  }

  private cancel(pod: KObject, withEvent: boolean): void {
    const key = this.keyOf(pod);
    const w = this.work.get(key);
    if (!w) return;
    w.cancel();
    this.work.delete(key);
    if (withEvent && w.uid === pod.metadata.uid) this.events.event(pod, 'Normal', 'TaintManagerEviction', `Cancelling deletion of Pod ${key}`);
  }

  private fire(key: string, uid: string): void {
    const w = this.work.get(key);
    if (w?.uid === uid) this.work.delete(key);
    const i = key.indexOf('/');
    const [ns, name] = [key.slice(0, i), key.slice(i + 1)];
    const pod = this.client.get('v1/pods', ns, name);
    if (!pod || pod.metadata.uid !== uid || pod.metadata.deletionTimestamp) return;
    this.events.event(pod, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${key}`);
    const def = this.client.resource('v1/pods')!;
    const stamp = rfc3339(this.clock.now());
    try {
      this.client.guaranteedUpdate(def, ns, name, (cur) => {
        const st = (cur.status ?? {}) as { conditions?: Array<Record<string, unknown>> };
        const conditions = (st.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget');
        conditions.push({ type: 'DisruptionTarget', status: 'True', lastTransitionTime: stamp, reason: 'DeletionByTaintManager', message: 'Taint manager: deleting due to NoExecute taint' });
        return { ...cur, status: { ...st, conditions } };
      }, { subresource: 'status' });
      this.client.delete(def, ns, name, { preconditions: { uid } });
    } catch (err) {
      this.log.debug({ err, pod: key }, 'taint eviction failed');
    }
  }

  stop(): void {
    this.unsubscribe();
    this.pods.stop();
    for (const w of this.work.values()) w.cancel();
    this.work.clear();
  }
}
