// HorizontalPodAutoscaler controller (autoscaling/v2): every 15 s of clock time per HPA, read the target's scale,
// compute a replica count from the metrics, stabilize and rate-limit it, write spec.replicas of the target when it
// changes, and report status (replicas, current metrics, conditions) and events as kube-controller-manager does.
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerStatus, MetricSpec, MetricStatus } from '../../generated/k8s/autoscaling/v2.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import { rfc3339, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { splitKey } from '../../machinery/object-key.js';
import { defineController, generationChanged, type ControllerContext } from '../runtime/index.js';
import { newHistory, normalizeLegacy, normalizeWithBehavior, recordInitialRecommendation, recordScaleEvent, type ScalingHistory } from './behavior.js';
import { HpaConditions } from './conditions.js';
import { replicasForMetrics } from './metric-replicas.js';
import { defaultCalcOptions } from './replica-calculator.js';
import { getScale, updateScale, type Scale } from './scale-target.js';

/** Upstream --horizontal-pod-autoscaler-sync-period. */
export const hpaSyncPeriodMs = 15_000;
const storageKey = 'autoscaling/v2/horizontalpodautoscalers';
const defaultMetrics: MetricSpec[] = [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }];

/**
 * Each HPA is synced every period (its sync asks to be queued again then); status writes, its own included, wait for
 * the next period, while a new HPA or a spec change is looked at now.
 */
export const hpaController = defineController({
  name: 'horizontal-pod-autoscaler',
  for: { resource: storageKey, when: generationChanged },
  setup: (ctx) => new HpaReconciler(ctx),
});

class HpaReconciler {
  private readonly client: Client;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly events: EventRecorder;
  private readonly history = new Map<string, ScalingHistory>();

  constructor({ client, clock, log }: ControllerContext) {
    this.client = client;
    this.clock = clock;
    this.log = log;
    this.events = new EventRecorder(client, { component: 'horizontal-pod-autoscaler' });
  }

  async reconcile(key: string): Promise<number | undefined> {
    const { namespace: ns, name } = splitKey(key);
    const hpa = this.client.get<HorizontalPodAutoscaler>(storageKey, ns, name);
    if (!hpa || hpa.metadata?.deletionTimestamp) {
      this.history.delete(key);
      return undefined;
    }
    try {
      await this.sync(key, hpa);
    } catch (err) {
      this.log.debug({ err, hpa: key }, 'horizontal pod autoscaler sync failed');
    }
    return hpaSyncPeriodMs;
  }

  private warn(hpa: HorizontalPodAutoscaler, reason: string, message: string): void {
    this.events.event(hpa, 'Warning', reason, message);
  }

  private async sync(key: string, hpa: HorizontalPodAutoscaler): Promise<void> {
    const ns = hpa.metadata?.namespace ?? '';
    const nowMs = this.clock.nowMs();
    const old = hpa.status ?? { desiredReplicas: 0 };
    const conds = new HpaConditions(old.conditions ?? [], rfc3339(new Date(nowMs)));
    const spec = hpa.spec!;
    // When the sync stops early, the replica count is refreshed and the last decision kept.
    const keepLast = (current: number) => this.writeStatus(hpa, { ...old, currentReplicas: current, conditions: conds.all });

    let scale: Scale;
    try {
      scale = getScale(this.client, ns, spec.scaleTargetRef);
    } catch (e) {
      const msg = (e as Error).message;
      this.warn(hpa, 'FailedGetScale', msg);
      conds.set('AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${msg}`);
      await this.writeStatus(hpa, { ...old, conditions: conds.all });
      return;
    }
    conds.set('AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
    const current = scale.specReplicas;
    const history = this.history.get(key) ?? newHistory();
    this.history.set(key, history);
    recordInitialRecommendation(history, current, nowMs);

    const min = spec.minReplicas ?? 1;
    const max = spec.maxReplicas;
    let desired = 0;
    let reason = '';
    let rescale = true;
    let statuses: MetricStatus[] | undefined;
    if (current === 0 && min !== 0) {
      rescale = false;
      conds.set('ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    } else if (current > max) {
      reason = 'Current number of replicas above Spec.MaxReplicas';
      desired = max;
    } else if (current < min) {
      reason = 'Current number of replicas below Spec.MinReplicas';
      desired = min;
    } else {
      const specs = spec.metrics?.length ? spec.metrics : defaultMetrics;
      const opts = { ...defaultCalcOptions, nowMs };
      const out = replicasForMetrics(this.client, ns, specs, scale, (r, m) => this.warn(hpa, r, m), opts);
      conds.apply(out.condition);
      if (out.replicas === -1) {
        await keepLast(current);
        this.warn(hpa, 'FailedComputeMetricsReplicas', out.error ?? '');
        return;
      }
      statuses = out.statuses;
      desired = out.replicas;
      if (desired > current) reason = `${out.metric} above target`;
      if (desired < current) reason = 'All metrics below target';
      const input = { currentReplicas: current, desired, minReplicas: min, maxReplicas: max, nowMs };
      const n = spec.behavior ? normalizeWithBehavior(history, input, spec.behavior) : normalizeLegacy(history, input);
      conds.set('AbleToScale', 'True', n.ableToScale.reason, n.ableToScale.message);
      conds.set('ScalingLimited', n.limited.status, n.limited.reason, n.limited.message);
      desired = n.replicas;
      rescale = desired !== current;
    }

    let lastScaleTime = old.lastScaleTime;
    if (rescale) {
      try {
        await updateScale(this.client, ns, scale, desired);
      } catch (e) {
        const msg = (e as Error).message;
        this.warn(hpa, 'FailedRescale', `New size: ${desired}; reason: ${reason}; error: ${msg}`);
        conds.set('AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${msg}`);
        await keepLast(current);
        return;
      }
      conds.set('AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
      this.events.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${reason}`);
      recordScaleEvent(history, spec.behavior, current, desired, nowMs);
      lastScaleTime = rfc3339(new Date(nowMs));
      this.log.debug({ hpa: key, from: current, to: desired, reason }, 'rescaled');
    } else {
      desired = current;
    }
    await this.writeStatus(hpa, {
      currentReplicas: current, desiredReplicas: desired, lastScaleTime,
      currentMetrics: statuses?.length ? statuses : undefined, conditions: conds.all,
    });
  }

  /** Writes the status when it differs from the stored one (observedGeneration: the spec this decision saw). */
  private async writeStatus(hpa: HorizontalPodAutoscaler, next: HorizontalPodAutoscalerStatus): Promise<void> {
    const status = JSON.parse(JSON.stringify({ observedGeneration: hpa.metadata?.generation, ...next })) as HorizontalPodAutoscalerStatus;
    // currentReplicas is omitted when zero; desiredReplicas is always present.
    if (!status.currentReplicas) delete status.currentReplicas;
    if (JSON.stringify(status) === JSON.stringify(hpa.status ?? {})) return;
    const def = this.client.resource('autoscaling/v2/horizontalpodautoscalers')!;
    await this.client.guaranteedUpdate(def, hpa.metadata?.namespace ?? '', hpa.metadata?.name ?? '', (cur) => ({ ...cur, status }), { subresource: 'status' });
  }
}
