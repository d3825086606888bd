// One scale-loop check of a ScaledObject (pkg/scaling/scale_handler.go checkScalers + the executor): activity from the
// readings, the fallback's health bookkeeping, the 0 <-> 1 decision written through /scale with upstream's events,
// and the loop's part of the status (Active/Ready/Fallback conditions, lastActiveTime, health).
import type { Client } from '../../client/client.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { Clock } from '../../util/clock.js';
import { rfc3339 } from '../../util/clock.js';
import { getCondition, setCondition } from './conditions.js';
import { decide } from './executor.js';
import type { Reading, ScaleLoop } from './scale-loop.js';
import { getScale, resolveTarget, setScale } from './scale-target.js';
import { scaledObjectSpec } from './spec.js';
import { patchStatus } from './status.js';
import { msg, scaledObjectsRef, type HealthStatus, type ScaledObject, type ScaledObjectStatus } from './types.js';

export interface CheckHost {
  client: Client;
  clock: Clock;
  events: EventRecorder;
}

/** Activity and error over the readings: cpu/memory-only objects are always active when nothing failed. */
export function activity(loop: ScaleLoop, readings: Map<number, Reading>): { isActive: boolean; isError: boolean; activeTriggers: string[] } {
  let isActive = false, isError = false;
  const activeTriggers: string[] = [];
  for (const b of loop.scalers) {
    const r = readings.get(b.index);
    if (!r) continue;
    if (r.error !== undefined) isError = true;
    else if (r.active) {
      isActive = true;
      const n = b.scaler.metricSpec().external?.metric.name;
      if (n) activeTriggers.push(n);
    }
  }
  const cpuMem = loop.scalers.filter((b) => b.trigger.type === 'cpu' || b.trigger.type === 'memory').length;
  if (loop.scalers.length <= cpuMem && !isError) isActive = true;
  return { isActive, isError, activeTriggers };
}

/** Fallback health (pkg/fallback): failures counted per metric; active when one exceeds failureThreshold. */
export function updateHealth(health: Record<string, HealthStatus>, loop: ScaleLoop, readings: Map<number, Reading>, threshold: number): boolean {
  loop.fallbackMetrics.clear();
  for (const b of loop.scalers) {
    const name = b.scaler.metricSpec().external?.metric.name;
    const r = readings.get(b.index);
    if (!name || !r) continue;
    if (r.error === undefined) health[name] = { numberOfFailures: 0, status: 'Happy' };
    else {
      const n = (health[name]?.numberOfFailures ?? 0) + 1;
      health[name] = { numberOfFailures: n, status: 'Failing' };
      if (n > threshold) loop.fallbackMetrics.add(name);
    }
  }
  return loop.fallbackMetrics.size > 0;
}

export async function checkScaledObject(host: CheckHost, loop: ScaleLoop, readings: Map<number, Reading>): Promise<void> {
  const [ns, name] = [loop.key.slice(0, loop.key.indexOf('/')), loop.key.slice(loop.key.indexOf('/') + 1)];
  const so = host.client.get<ScaledObject>(scaledObjectsRef, ns, name);
  if (!so || so.metadata.deletionTimestamp || !loop.isFor(so)) return;
  const spec = scaledObjectSpec(so.spec);
  const now = host.clock.nowMs();
  const { isActive, isError, activeTriggers } = activity(loop, readings);
  for (const b of loop.scalers) {
    const r = readings.get(b.index);
    if (r?.error !== undefined) host.events.event(so, 'Warning', 'KEDAScalerFailed', r.error);
  }
  const fb = spec.fallback && spec.fallback.failureThreshold >= 0 && spec.fallback.replicas >= 0 ? spec.fallback : undefined;
  const health: Record<string, HealthStatus> = structuredClone(so.status?.health ?? {});
  const fallbackActive = fb ? updateHealth(health, loop, readings, fb.failureThreshold) : false;
  const fallbackWas = getCondition(so.status?.conditions, 'Fallback')?.status === 'True';
  if (fb && fallbackActive && !fallbackWas) host.events.event(so, 'Normal', 'ScaledObjectFallbackActivated', msg.fallbackActivated);
  else if (fb && !fallbackActive && fallbackWas) host.events.event(so, 'Normal', 'ScaledObjectFallbackDeactivated', msg.fallbackDeactivated);

  const kind = so.status?.scaleTargetKind ?? '';
  const targetName = spec.target.name;
  let current: number;
  let def;
  try {
    def = resolveTarget(host.client, spec.target.apiVersion, spec.target.kind).def;
    current = getScale(host.client, def, ns, targetName).replicas;
  } catch (err) {
    await patchStatus<ScaledObjectStatus>(host.client, scaledObjectsRef, ns, name, (s) => {
      s.conditions ??= [];
      setCondition(s.conditions, 'Ready', 'False', 'ErrorGettingCurrentReplicas', `Error getting current replicas count for ScaleTarget: ${(err as Error).message}`);
    });
    return;
  }
  const d = decide({
    spec, annotations: so.metadata.annotations, currentReplicas: current, isActive, isError,
    lastActiveMs: so.status?.lastActiveTime ? Date.parse(so.status.lastActiveTime) : undefined,
    creationMs: Date.parse(so.metadata.creationTimestamp ?? '') || now, nowMs: now,
  });
  let touch = d.touchActive;
  if (d.scaleTo !== undefined && d.scaleTo !== current) {
    try {
      await setScale(host.client, def, ns, targetName, d.scaleTo);
      if (d.kind === 'activate') host.events.event(so, 'Normal', 'KEDAScaleTargetActivated', `Scaled ${kind} ${ns}/${targetName} from ${current} to ${d.scaleTo}, triggered by ${activeTriggers.join(';')}`);
      else if (d.kind === 'deactivate') host.events.event(so, 'Normal', 'KEDAScaleTargetDeactivated', `Deactivated ${kind} ${ns}/${targetName} from ${current} to ${d.scaleTo}`);
    } catch {
      touch = false;
      if (d.kind === 'activate') host.events.event(so, 'Warning', 'KEDAScaleTargetActivationFailed', `Failed to scale ${kind} ${ns}/${targetName} from ${current} to ${d.scaleTo}`);
      else if (d.kind === 'deactivate') host.events.event(so, 'Warning', 'KEDAScaleTargetDeactivationFailed', `Failed to deactivate ${kind} ${ns}/${targetName} from ${current} to ${d.scaleTo}`);
    }
  }
  await patchStatus<ScaledObjectStatus>(host.client, scaledObjectsRef, ns, name, (s) => {
    s.conditions ??= [];
    for (const c of d.conditions) setCondition(s.conditions, c.type, c.status, c.reason, c.message);
    if (fb) setCondition(s.conditions, 'Fallback', fallbackActive ? 'True' : 'False', fallbackActive ? 'FallbackExists' : 'NoFallbackFound', fallbackActive ? msg.fallbackExists : msg.noFallback);
    if (fb) s.health = health;
    if (touch) s.lastActiveTime = rfc3339(new Date(now));
  });
}
