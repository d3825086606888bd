// The DaemonSet controller: one pod per eligible node, pinned there by node affinity and placed by the scheduler;
// pods leave nodes that become ineligible; failed pods are replaced with backoff; template changes roll out
// node by node (RollingUpdate with maxUnavailable / maxSurge) or wait for deletions (OnDelete); revisions are
// kept as ControllerRevisions. Upstream: pkg/controller/daemon.
import type { ControllerRevision, DaemonSet } from '../../generated/k8s/apps/v1.js';
import type { Node, Pod } from '../../generated/k8s/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { Change } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { defineController, type ControllerContext } from '../runtime/index.js';
import { claim } from '../workload/claim.js';
import { canonicalJson } from '../workload/hash.js';
import { History, revisionHashLabel } from '../workload/history.js';
import { ownerKeysFor } from '../workload/dependents.js';
import { drive, type Steps } from '../../util/steps.js';
import { PodControl, errorMessage } from '../workload/pod-control.js';
import { msUntilAvailable } from '../workload/pod-state.js';
import { pinToNode, placement, targetNodeName } from './eligibility.js';
import { FailedPodBackoff, decideNode } from './node-pods.js';
import { planRollingUpdate } from './rolling-update.js';
import { computeStatus, sameStatus } from './status.js';
import { daemonPodTemplate, revisionData } from './template.js';
import { keyOf, splitKey } from '../../machinery/object-key.js';

const minOf = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
const isTerminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** The DaemonSets a node change concerns: all of them on add and delete, those whose placement changed on update. */
function daemonSetsForNode(client: Client, c: Change): string[] {
  const cur = c.object;
  const prev = c.previous;
  const out: string[] = [];
  for (const ds of client.list<DaemonSet>('apps/v1/daemonsets')) {
    if (c.type === 'MODIFIED' && prev) {
      const a = placement(prev, ds);
      const b = placement(cur, ds);
      if (a.shouldRun === b.shouldRun && a.shouldContinueRunning === b.shouldContinueRunning) continue;
    }
    out.push(keyOf(ds));
  }
  return out;
}

export const daemonSetController = defineController({
  name: 'daemonset',
  for: { resource: 'apps/v1/daemonsets', when: (c) => c.type !== 'DELETED' },
  watches: [
    { resource: 'v1/pods', map: (c, { client }) => ownerKeysFor(client, c, 'DaemonSet', 'apps/v1/daemonsets') },
    { resource: 'v1/nodes', map: (c, { client }) => daemonSetsForNode(client, c) },
  ],
  setup: (ctx) => new DaemonSetReconciler(ctx),
});

class DaemonSetReconciler {
  private readonly client: Client;
  private readonly log: Logger;
  private readonly events: EventRecorder;
  private readonly pods: PodControl;
  private readonly history: History;
  private readonly backoff = new FailedPodBackoff();

  constructor({ client, log }: ControllerContext) {
    this.client = client;
    this.log = log;
    this.events = new EventRecorder(client, { component: 'daemonset-controller' });
    this.pods = new PodControl(client, this.events);
    this.history = new History(client);
  }

  reconcile(key: string): Promise<void | number> | void | number {
    return drive(this.syncDaemonSet(key));
  }

  /** Steps: waits only while an admission webhook is called for a pod it creates (see util/steps.ts). */
  private *syncDaemonSet(key: string): Steps<void | number> {
    const { namespace, name } = splitKey(key);
    const ds = this.client.get('apps/v1/daemonsets', namespace, name);
    if (!ds) return;
    const sel = ds.spec?.selector;
    if (!sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length)) {
      this.events.event(ds, 'Warning', 'SelectingAll', 'This daemon set is selecting all pods. A non-empty selector is required.');
      return;
    }
    if (ds.metadata?.deletionTimestamp) return;
    const nodes = this.client.list('v1/nodes');
    const { cur, old } = yield* this.constructHistory(ds);
    const hash = cur.metadata?.labels?.[revisionHashLabel] ?? '';
    // One instant for the whole pass: a pod judged not yet available must also be the one the requeue waits for.
    const now = this.client.clock.nowMs();
    let retry = yield* this.manage(ds, nodes, hash, now);
    if (ds.spec?.updateStrategy?.type !== 'OnDelete') yield* this.rollingUpdate(ds, nodes, hash, now);
    yield* this.cleanupHistory(ds, old);
    retry = minOf(retry, yield* this.updateStatus(ds, nodes, hash, now));
    // A ready pod turning available (minReadySeconds) may let the rollout move on: look again then.
    const minReady = ds.spec?.minReadySeconds ?? 0;
    if (minReady > 0) {
      for (const pods of (yield* this.podsByNode(ds)).values()) for (const p of pods) retry = minOf(retry, msUntilAvailable(p, minReady, now));
    }
    return retry;
  }

  /** The set's pods (adopting matching orphans, releasing non-matching), grouped by the node they are for. */
  private *podsByNode(ds: DaemonSet): Steps<Map<string, Pod[]>> {
    const candidates = this.client.list('v1/pods', ds.metadata?.namespace ?? '');
    const mine = yield* claim(this.client, this.pods.podsDef, ds, ds.spec?.selector, candidates);
    const byNode = new Map<string, Pod[]>();
    for (const pod of mine) {
      if (pod.metadata?.deletionTimestamp && isTerminal(pod)) continue;
      const node = targetNodeName(pod);
      if (!node) continue;
      byNode.set(node, [...(byNode.get(node) ?? []), pod]);
    }
    return byNode;
  }

  private *manage(ds: DaemonSet, nodes: Node[], hash: string, now: number): Steps<number | undefined> {
    const byNode = yield* this.podsByNode(ds);
    const create: string[] = [];
    const remove: Pod[] = [];
    let retry: number | undefined;
    for (const node of nodes) {
      const d = decideNode(ds, node, byNode.get(node.metadata?.name ?? '') ?? [], hash, now, this.backoff);
      for (const [type, reason, message] of d.events) this.events.event(ds, type, reason, message);
      if (d.create) create.push(node.metadata?.name ?? '');
      remove.push(...d.delete);
      retry = minOf(retry, d.retryInMs);
    }
    // Pods never bound and meant for nodes that are gone: nobody else cleans them up.
    const existing = new Set(nodes.map((n) => n.metadata?.name ?? ''));
    for (const [node, pods] of byNode) {
      if (!existing.has(node)) remove.push(...pods.filter((p) => !p.spec?.nodeName && !p.metadata?.deletionTimestamp));
    }
    yield* this.sync(ds, remove, create, hash);
    return retry;
  }

  private *rollingUpdate(ds: DaemonSet, nodes: Node[], hash: string, now: number): Steps<void> {
    const byNode = yield* this.podsByNode(ds);
    const wanted = new Set<string>();
    for (const node of nodes) {
      if (!placement(node, ds).shouldRun) continue;
      const n = node.metadata?.name ?? '';
      wanted.add(n);
      if (!byNode.has(n)) byNode.set(n, []);
    }
    const plan = planRollingUpdate({ ds, hash, nowMs: now, byNode, wanted });
    if (plan.deletePods.length || plan.createOnNodes.length) {
      this.log.debug({ ds: keyOf(ds), delete: plan.deletePods.map((p) => p.metadata?.name), create: plan.createOnNodes }, 'rolling update step');
    }
    yield* this.sync(ds, plan.deletePods, plan.createOnNodes, hash);
  }

  /** Deletes then creates; a failed create stops further creates this round (slow start) and fails the sync for a retry. */
  private *sync(ds: DaemonSet, remove: Pod[], createOn: string[], hash: string): Steps<void> {
    const owner = ds;
    let failure: unknown;
    for (const pod of remove) {
      try {
        yield* this.pods.delete(owner, pod);
      } catch (err) {
        failure ??= err;
      }
    }
    if (createOn.length) {
      const template = daemonPodTemplate(ds, hash);
      for (const node of createOn) {
        try {
          yield* this.pods.create(owner, template, { mutate: (pod) => void (pod.spec!.affinity = pinToNode(pod.spec?.affinity, node)) });
        } catch (err) {
          const ns = this.client.get('v1/namespaces', '', ds.metadata?.namespace ?? '');
          if (!ns || ns.metadata.deletionTimestamp) return;
          failure ??= err;
          break;
        }
      }
    }
    if (failure) throw new Error(`daemon set ${keyOf(owner)}: ${errorMessage(failure)}`);
  }

  /** The current revision (created or renumbered) and the older ones, as upstream's constructHistory. */
  private *constructHistory(ds: DaemonSet): Steps<{ cur: ControllerRevision; old: ControllerRevision[] }> {
    const owner = ds;
    const revisions = yield* this.history.list(owner, ds.spec?.selector);
    const data = revisionData(ds);
    const dataText = canonicalJson(data);
    const isCurrent = (r: ControllerRevision) => canonicalJson(r.data) === dataText;
    const old = revisions.filter((r) => !isCurrent(r));
    const next = History.nextRevision(old);
    const labels = { ...(ds.spec?.template?.metadata?.labels ?? {}) };
    let cur = yield* this.history.ensure(owner, revisions, data, next, labels, ds.status?.collisionCount ?? 0, (n) => this.setCollisionCount(ds, n));
    // A new revision carries the set's annotations (kubectl rollout history reads kubernetes.io/change-cause there).
    const annotations = ds.metadata?.annotations;
    if (annotations && Object.keys(annotations).length && !revisions.some((r) => r.metadata?.name === cur.metadata?.name)) {
      cur = (yield this.client.guaranteedUpdate(this.history.def, ds.metadata?.namespace ?? '', cur.metadata?.name ?? '', (c) => ({ ...c, metadata: { ...c.metadata, annotations: { ...annotations } } }))) as ControllerRevision;
    }
    return { cur, old };
  }

  private async setCollisionCount(ds: DaemonSet, n: number): Promise<void> {
    const def = this.client.resource('apps/v1/daemonsets')!;
    await this.client.guaranteedUpdate(def, ds.metadata?.namespace ?? '', ds.metadata?.name ?? '', (cur) => ({ ...cur, status: { ...((cur.status ?? {}) as object), collisionCount: n } }), { subresource: 'status' });
  }

  /** Deletes the oldest old revisions beyond revisionHistoryLimit, sparing any a live pod still carries. */
  private *cleanupHistory(ds: DaemonSet, old: ControllerRevision[]): Steps<void> {
    const limit = ds.spec?.revisionHistoryLimit ?? 10;
    if (old.length <= limit) return;
    const live = new Set<string>();
    for (const pods of (yield* this.podsByNode(ds)).values()) for (const p of pods) if (p.metadata?.labels?.[revisionHashLabel]) live.add(p.metadata.labels[revisionHashLabel]);
    const keep = new Set(old.filter((r) => live.has(r.metadata?.labels?.[revisionHashLabel] ?? '')).map((r) => r.metadata?.name ?? ''));
    yield* this.history.truncate(old, keep, limit);
  }

  private *updateStatus(ds: DaemonSet, nodes: Node[], hash: string, now: number): Steps<number | undefined> {
    const fresh = (this.client.get('apps/v1/daemonsets', ds.metadata?.namespace ?? '', ds.metadata?.name ?? '')) ?? ds;
    const { status, recheckInMs } = computeStatus(fresh, nodes, yield* this.podsByNode(fresh), hash, now, true);
    if (sameStatus(fresh.status, status)) return recheckInMs;
    const def = this.client.resource('apps/v1/daemonsets')!;
    yield this.client.guaranteedUpdate(def, ds.metadata?.namespace ?? '', ds.metadata?.name ?? '', (cur) => {
      const collisionCount = (cur.status as DaemonSet['status'])?.collisionCount;
      return { ...cur, status: { ...status, ...(collisionCount !== undefined ? { collisionCount } : {}) } };
    }, { subresource: 'status' });
    return recheckInMs;
  }
}
