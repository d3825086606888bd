// The VPA updater: every interval of clock time, for each VPA in Recreate/Auto, InPlaceOrRecreate or InPlace mode, it
// picks the pods whose requests stray from the recommendation and applies it: in place through pods/resize (the
// kubelet admits, defers or refuses it), falling back to eviction when a resize is Infeasible, stays Deferred too
// long or is refused; or by eviction through the eviction API (PDBs hold), the admission step then setting the new
// requests on the replacement pod. minReplicas and the eviction tolerance bound how many pods are down at once.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Logger } from '../../util/logger.js';
import { controllingVpa } from './admission.js';
import { containerResourcesForPod, processForPod, setAmounts } from './policy.js';
import { comparePriority, meetsEvictionRequirements, podPriority, shouldUpdate, type PodPriority } from './priority.js';
import { creatorOf, disruptable, groupStats, type GroupStats } from './restriction.js';
import type { VpaSettings } from './settings.js';
import { annotations, podsRef, updateModeOf, vpaRef, type Vpa } from './types.js';

const updatingModes = new Set(['Recreate', 'Auto', 'InPlaceOrRecreate', 'InPlace']);
/** How many pods' first in-place attempt times are remembered. */
const maxAttempts = 10_000;
/** A resize still in progress after this long is given up on (upstream's InProgressResizeUpdateTimeout). */
const inProgressTimeoutMs = 3600_000;

type Decision = 'approved' | 'deferred' | 'evict';

const condition = (pod: Pod, type: string) => pod.status?.conditions?.find((c) => c.type === type && c.status === 'True');
const resizing = (pod: Pod) => !!(condition(pod, 'PodResizePending') || condition(pod, 'PodResizeInProgress'));

export class Updater {
  /** ns/name -> when the updater first saw the pod's in-place update pending or in progress. */
  private readonly attempts = new Map<string, number>();

  constructor(private readonly client: Client, private readonly settings: VpaSettings, private readonly events: EventRecorder, private readonly log: Logger) {}

  async runOnce(): Promise<void> {
    const vpas = this.client.list<Vpa>(vpaRef).filter((v) => !v.metadata.deletionTimestamp && updatingModes.has(updateModeOf(v)));
    if (!vpas.length) {
      this.attempts.clear();
      return;
    }
    const byNs = new Map<string, Vpa[]>();
    for (const v of vpas) byNs.set(v.metadata.namespace ?? '', [...(byNs.get(v.metadata.namespace ?? '') ?? []), v]);
    const controlled = new Map<Vpa, Pod[]>();
    const live = new Set<string>();
    for (const [ns, list] of byNs) {
      for (const pod of this.client.list<Pod>(podsRef, ns)) {
        if (pod.metadata?.deletionTimestamp) continue;
        live.add(`${ns}/${pod.metadata?.name ?? ''}`);
        const vpa = controllingVpa(this.client, pod, ns, list);
        if (vpa) controlled.set(vpa, [...(controlled.get(vpa) ?? []), pod]);
      }
    }
    for (const k of this.attempts.keys()) if (!live.has(k)) this.attempts.delete(k);
    for (const [vpa, pods] of controlled) {
      try {
        await this.updateVpa(vpa, pods);
      } catch (err) {
        this.log.warn({ err, vpa: `${vpa.metadata.namespace}/${vpa.metadata.name}` }, 'the VPA update round failed');
      }
    }
  }

  private async updateVpa(vpa: Vpa, pods: Pod[]): Promise<void> {
    if (!vpa.status?.recommendation) return;
    const mode = updateModeOf(vpa);
    const required = typeof vpa.spec?.updatePolicy?.minReplicas === 'number' && vpa.spec.updatePolicy.minReplicas > 0 ? vpa.spec.updatePolicy.minReplicas : this.settings.minReplicas;
    const groups = groupStats(this.client, pods, required, this.settings.evictionTolerance);
    const now = this.client.clock.nowMs();
    const candidates: Array<{ pod: Pod; prio: PodPriority }> = [];
    for (const pod of pods) {
      const { recs } = processForPod(vpa, pod);
      const prio = podPriority(pod, recs);
      if (!shouldUpdate(prio, pod, now, this.settings.podLifetimeThresholdMs, this.settings.podUpdateThreshold)) continue;
      if (!meetsEvictionRequirements(pod, recs, vpa.spec?.updatePolicy?.evictionRequirements)) continue;
      candidates.push({ pod, prio });
    }
    candidates.sort((a, b) => comparePriority(a.prio, b.prio));
    const inPlace = mode === 'InPlaceOrRecreate' || mode === 'InPlace';
    const toEvict: Pod[] = [];
    for (const { pod } of candidates) {
      const stats = groupOf(groups, pod);
      if (!inPlace) {
        toEvict.push(pod);
        continue;
      }
      const decision = this.canInPlace(pod, stats, now);
      if (decision === 'evict' && mode === 'InPlaceOrRecreate') toEvict.push(pod);
      if (decision !== 'approved') continue;
      if (await this.resize(vpa, pod)) stats!.inPlaceStarted++;
      else if (mode === 'InPlaceOrRecreate') toEvict.push(pod);
    }
    for (const pod of toEvict) {
      const stats = groupOf(groups, pod);
      if (!this.canEvict(pod, stats, now)) continue;
      if (this.evict(vpa, pod) && stats && pod.status?.phase !== 'Pending') stats.evicted++;
    }
  }

  private canInPlace(pod: Pod, stats: GroupStats | undefined, now: number): Decision {
    if (!stats || pod.status?.phase === 'Pending') return 'deferred';
    if (resizing(pod)) return this.canEvictResizing(pod, stats, now) ? 'evict' : 'deferred';
    return disruptable(stats) ? 'approved' : 'deferred';
  }

  private canEvict(pod: Pod, stats: GroupStats | undefined, now: number): boolean {
    if (!stats) return false;
    if (pod.status?.phase === 'Pending') return true;
    if (resizing(pod)) return this.canEvictResizing(pod, stats, now);
    return disruptable(stats);
  }

  /** A pod whose resize is stuck: Infeasible at once, Deferred after the timeout, in progress after an hour. */
  private canEvictResizing(pod: Pod, stats: GroupStats, now: number): boolean {
    const key = `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;
    let first = this.attempts.get(key);
    if (first === undefined) {
      first = now;
      if (this.attempts.size >= maxAttempts) this.attempts.delete(this.attempts.keys().next().value as string);
      this.attempts.set(key, first);
    }
    if (!disruptable(stats)) return false;
    const pending = condition(pod, 'PodResizePending');
    if (pending) return pending.reason === 'Deferred' ? now - first > this.settings.deferredResizeTimeoutMs : true;
    const progress = condition(pod, 'PodResizeInProgress');
    if (!progress) return false;
    return progress.reason || progress.message ? true : now - first > inProgressTimeoutMs;
  }

  /** Writes the recommendation through pods/resize, then marks the pod; false when the API refused it. */
  private async resize(vpa: Vpa, pod: Pod): Promise<boolean> {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const wanted = structuredClone(pod);
    const resources = containerResourcesForPod(vpa, wanted, processForPod(vpa, wanted));
    let changed = false;
    (wanted.spec?.containers ?? []).forEach((c, i) => {
      const r = resources[i];
      if (!r) return;
      const res = (c.resources ??= {});
      const before = JSON.stringify(res);
      if (Object.keys(r.requests).length) setAmounts((res.requests ??= {}) as Record<string, unknown>, r.requests);
      if (r.limits) setAmounts((res.limits ??= {}) as Record<string, unknown>, r.limits);
      if (JSON.stringify(res) !== before) changed = true;
    });
    if (!changed) return false;
    try {
      await this.client.update(podsRef, ns, name, wanted, { subresource: 'resize' });
    } catch (err) {
      this.log.debug({ err, pod: `${ns}/${name}` }, 'the in-place resize was refused');
      return false;
    }
    try {
      await this.client.guaranteedUpdate(podsRef, ns, name, (cur) => ({ ...cur, metadata: { ...cur.metadata, annotations: { ...(cur.metadata.annotations ?? {}), [annotations.inPlaceUpdated]: 'true' } } }));
    } catch (err) {
      this.log.debug({ err, pod: `${ns}/${name}` }, 'annotating the resized pod failed');
    }
    this.events.event(pod, 'Normal', 'InPlaceResizedByVPA', 'Pod was resized in place by VPA Updater.');
    return true;
  }

  private evict(vpa: Vpa, pod: Pod): boolean {
    const ns = pod.metadata?.namespace ?? '';
    const name = pod.metadata?.name ?? '';
    const refused = (err: unknown) => this.log.debug({ err, pod: `${ns}/${name}` }, 'the eviction was refused');
    try {
      const r = this.client.services.evictPod(ns, name);
      // On a store that waits (etcd) a refusal comes later: the pod stays, and the next pass tries again.
      if (r instanceof Promise) r.catch(refused);
    } catch (err) {
      refused(err);
      return false;
    }
    this.events.event(pod, 'Normal', 'EvictedByVPA', 'Pod was evicted by VPA Updater to apply resource recommendation.');
    this.events.event(vpa, 'Normal', 'EvictedPod', `VPA Updater evicted Pod ${name} to apply resource recommendation.`);
    return true;
  }
}

function groupOf(groups: Map<string, GroupStats>, pod: Pod): GroupStats | undefined {
  const c = creatorOf(pod);
  return c ? groups.get(c.key) : undefined;
}
