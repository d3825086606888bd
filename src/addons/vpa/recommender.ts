// The VPA recommender: every interval of clock time it samples the simulated usage of the running pods each VPA's
// target selects, folds the samples into per-container aggregates, and writes status.recommendation (target,
// lowerBound, upperBound, uncappedTarget, with resourcePolicy applied) and the conditions; an Event on the VPA
// tells when a container's target changes.
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { Client } from '../../client/client.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { Logger } from '../../util/logger.js';
import { AggregateState } from './aggregate.js';
import { resourceNames } from './amounts.js';
import { Conditions } from './conditions.js';
import { confidence, estimatePod } from './estimator.js';
import { applyPolicy, containerOff, controlledResources, renderRecommendation } from './policy.js';
import type { VpaSettings } from './settings.js';
import { podMatches, targetSelector } from './target.js';
import { defaultRecommenderName, podsRef, vpaRef, type ContainerRecommendation, type Vpa, type VpaStatus } from './types.js';

/** Bounds: VPAs tracked, containers per VPA, pods sampled per VPA per round. */
const maxVpas = 10_000;
const maxContainers = 64;
const maxPodsPerVpa = 5_000;

const terminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Whether the default recommender serves this VPA (no recommenders listed, or `default` among them). */
export function servedByDefault(vpa: Vpa): boolean {
  const list = vpa.spec?.recommenders;
  if (!Array.isArray(list) || list.length === 0) return true;
  return list.some((r) => r?.name === defaultRecommenderName);
}

export class Recommender {
  /** VPA uid -> container name -> aggregate. */
  private readonly states = new Map<string, Map<string, AggregateState>>();

  constructor(private readonly client: Client, private readonly settings: VpaSettings, private readonly events: EventRecorder, private readonly log: Logger) {}

  /** One round: sample, aggregate and write every VPA's status. */
  async runOnce(): Promise<void> {
    const now = this.client.clock.nowMs();
    const vpas = this.client.list<Vpa>(vpaRef).filter((v) => !v.metadata.deletionTimestamp && servedByDefault(v)).slice(0, maxVpas);
    const live = new Set(vpas.map((v) => v.metadata.uid ?? ''));
    for (const uid of this.states.keys()) if (!live.has(uid)) this.states.delete(uid);
    for (const vpa of vpas) {
      try {
        await this.process(vpa, now);
      } catch (err) {
        this.log.warn({ err, vpa: `${vpa.metadata.namespace}/${vpa.metadata.name}` }, 'the VPA recommendation failed');
      }
    }
  }

  /** The aggregates of a VPA (for tests and the updater's view of history). */
  aggregates(uid: string): ReadonlyMap<string, AggregateState> | undefined {
    return this.states.get(uid);
  }

  private async process(vpa: Vpa, now: number): Promise<void> {
    const uid = vpa.metadata.uid ?? '';
    const ns = vpa.metadata.namespace ?? '';
    const conds = new Conditions(vpa.status?.conditions, new Date(now));
    const sel = targetSelector(this.client, vpa);
    conds.delete('ConfigDeprecated');
    let podCount = 0;
    if ('error' in sel) {
      conds.set('ConfigUnsupported', true, '', sel.error);
    } else {
      conds.delete('ConfigUnsupported');
      let states = this.states.get(uid);
      const pods = this.client.list<Pod>(podsRef, ns).filter((p) => !terminal(p) && !p.metadata?.deletionTimestamp && podMatches(sel.selector, p)).slice(0, maxPodsPerVpa);
      podCount = pods.length;
      for (const pod of pods) {
        const usage = this.client.services.podUsageNow(pod);
        if (!usage) continue;
        if (!states) this.states.set(uid, (states = new Map()));
        for (const u of usage) {
          let s = states.get(u.name);
          if (!s) {
            if (states.size >= maxContainers) continue;
            states.set(u.name, (s = new AggregateState()));
          }
          s.addCpu(u.nanoCores / 1e9, now);
          s.addMemory(`${pod.metadata?.uid ?? ''}/${u.name}`, u.bytes, now);
        }
      }
    }
    const states = this.states.get(uid) ?? new Map<string, AggregateState>();
    const wanted = new Map([...states].filter(([name, s]) => !s.isEmpty() && !containerOff(vpa, name)));
    const estimates = estimatePod(wanted, (name) => controlledResources(vpa, name), this.settings.recommender);
    const recs: ContainerRecommendation[] = [...estimates.keys()].sort().map((name) => renderRecommendation(applyPolicy(vpa, { containerName: name, ...estimates.get(name)! })));
    const hasRec = recs.length > 0;
    if (podCount > 0) conds.delete('NoPodsMatched');
    else conds.set('NoPodsMatched', true, 'NoPodsMatched', 'No pods match this VPA object');
    if (hasRec) conds.set('RecommendationProvided', true);
    else if (podCount > 0) conds.set('RecommendationProvided', false);
    else conds.set('RecommendationProvided', false, 'NoPodsMatched', 'No pods match this VPA object');
    const interval = this.settings.recommender.confidenceIntervalCpuMs;
    const low = [...wanted].filter(([, s]) => confidence(s, interval) < 1).map(([n]) => n).sort();
    if (!hasRec) conds.delete('LowConfidence');
    else if (low.length) conds.set('LowConfidence', true, 'ShortHistory', `Less than ${interval / 3600_000}h of usage history for container(s): ${low.join(', ')}`);
    else conds.set('LowConfidence', false);
    const status: VpaStatus = { ...(vpa.status ?? {}), conditions: conds.list() };
    if (hasRec) status.recommendation = { containerRecommendations: recs };
    else delete status.recommendation;
    if (vpa.metadata.generation !== undefined) status.observedGeneration = vpa.metadata.generation;
    if (JSON.stringify(status) === JSON.stringify(vpa.status ?? {})) return;
    try {
      await this.client.updateStatus<Vpa>(vpaRef, ns, vpa.metadata.name ?? '', { ...vpa, status });
    } catch (err) {
      this.log.debug({ err }, 'writing the VPA status failed; the next round retries');
      return;
    }
    this.recordChanges(vpa, recs);
  }

  private recordChanges(vpa: Vpa, recs: ContainerRecommendation[]): void {
    const before = new Map((vpa.status?.recommendation?.containerRecommendations ?? []).map((r) => [r.containerName, r]));
    for (const r of recs) {
      const old = before.get(r.containerName);
      if (old && JSON.stringify(old.target) === JSON.stringify(r.target)) continue;
      const text = (t: ContainerRecommendation['target'] | undefined) => resourceNames.filter((n) => t?.[n] !== undefined).map((n) => `${n} ${String(t![n])}`).join(', ') || 'none';
      const msg = old
        ? `Recommendation for container ${r.containerName} changed: target ${text(r.target)} (was ${text(old.target)})`
        : `Recommendation for container ${r.containerName} provided: target ${text(r.target)}`;
      this.events.event(vpa, 'Normal', 'RecommendationUpdated', msg);
    }
  }
}
