// The ScaledObject reconciler (controllers/keda/scaledobject_controller.go): finalizer and name label, pause handling,
// the target checked through /scale, replica bounds and triggers validated, scalers built, the HPA kept as the
// ScaledObject wants it, and the scale loop (re)started when the spec's generation changes. Errors become Ready=False
// with upstream's `<message>: <error>` text and a ScaledObjectCheckFailed event; nothing here throws past a reconcile.
import type { Client } from '../../client/client.js';
import { EventRecorder } from '../../client/event-recorder.js';
import { defineController } from '../../controllers/runtime/index.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { areInitialized, getCondition, initialConditions, setCondition } from './conditions.js';
import { desiredHpa, duplicateMetricError, hpaNameOf, hpaNeedsUpdate } from './hpa.js';
import { kedaMetricsSource } from './metrics-source.js';
import { checkScaledObject } from './so-check.js';
import { ScaleLoop, type Reading } from './scale-loop.js';
import { getScale, gvkString, resolveTarget, setScale, TargetError, type Gvkr } from './scale-target.js';
import { buildScalers, type BuiltScaler } from './scalers/build.js';
import type { ScalerEnv } from './scalers/scaler.js';
import { needsPause, pausedReplicas, pauseScaleIn, pauseScaleOut, replicaBoundsError, scaledObjectSpec, triggersError, type ScaledObjectSpec } from './spec.js';
import { patchStatus } from './status.js';
import { finalizer, hpasRef, msg, scaledObjectNameLabel, scaledObjectsRef, type KedaCondition, type ScaledObject, type ScaledObjectStatus } from './types.js';
import { splitKey } from '../../machinery/object-key.js';

/** ScaledObjects, and the HPA one controls going away (it is made again). */
export const scaledObjectController = defineController({
  name: 'scaledobject',
  for: scaledObjectsRef,
  owns: [{ resource: hpasRef, when: (c) => c.type === 'DELETED' }],
  setup: ({ client, clock, log }) => new ScaledObjectController(client, clock, log),
});

class CheckFailed extends Error {
  constructor(readonly what: string, cause: string) {
    super(cause);
  }
}

export class ScaledObjectController {
  readonly events: EventRecorder;
  readonly env: ScalerEnv;
  private readonly loops = new Map<string, ScaleLoop>();
  private readonly stops: Array<() => void> = [];

  constructor(readonly client: Client, readonly clock: Clock, readonly log: Logger) {
    this.events = new EventRecorder(client, { component: 'keda-operator' });
    this.env = { client, clock };
    this.stops.push(client.services.addExternalMetrics(kedaMetricsSource({
      env: this.env,
      loopsIn: (ns) => [...this.loops.values()].filter((l) => l.key.startsWith(`${ns}/`)),
      loop: (ns, name) => this.loops.get(`${ns}/${name}`),
      fallbackReplicas: (ns, name) => scaledObjectSpec(this.client.get<ScaledObject>(scaledObjectsRef, ns, name)?.spec).fallback?.replicas,
    })));
  }

  stop(): void {
    for (const s of this.stops) s();
    for (const l of this.loops.values()) l.stop();
    this.loops.clear();
  }

  /** The running loop of a ScaledObject (tests, the metrics source). */
  loopOf(namespace: string, name: string): ScaleLoop | undefined {
    return this.loops.get(`${namespace}/${name}`);
  }

  private stopLoop(key: string): void {
    this.loops.get(key)?.stop();
    this.loops.delete(key);
  }

  async reconcile(key: string): Promise<void> {
    const { namespace: ns, name } = splitKey(key);
    const so = this.client.get<ScaledObject>(scaledObjectsRef, ns, name);
    if (!so) {
      this.stopLoop(key);
      return;
    }
    if (so.metadata.deletionTimestamp) return this.finalize(key, so);
    const labels = so.metadata.labels ?? {};
    if (!so.metadata.finalizers?.includes(finalizer) || labels[scaledObjectNameLabel] !== name) {
      await this.client.guaranteedUpdate(scaledObjectsRef, ns, name, (cur) => ({
        ...cur,
        metadata: {
          ...cur.metadata,
          finalizers: cur.metadata.finalizers?.includes(finalizer) ? cur.metadata.finalizers : [...(cur.metadata.finalizers ?? []), finalizer],
          labels: { ...(cur.metadata.labels ?? {}), [scaledObjectNameLabel]: name },
        },
      }));
      return; // the write brings the object back through the queue
    }
    if (!areInitialized(so.status?.conditions)) {
      await patchStatus<ScaledObjectStatus>(this.client, scaledObjectsRef, ns, name, (s) => {
        const init = initialConditions();
        s.conditions = [...(s.conditions ?? []).filter((c) => !init.some((i) => i.type === c.type)), ...init.filter((i) => !(s.conditions ?? []).some((c) => c.type === i.type))];
      });
    }
    const cur = this.client.get<ScaledObject>(scaledObjectsRef, ns, name) ?? so;
    const conditions: KedaCondition[] = structuredClone(cur.status?.conditions ?? initialConditions());
    const spec = scaledObjectSpec(cur.spec);
    const statusUpdates: Partial<ScaledObjectStatus> & { clearPaused?: boolean } = {};
    let message = '';
    let failure: string | undefined;
    try {
      message = await this.reconcileScaledObject(key, cur, spec, conditions, statusUpdates);
    } catch (err) {
      if (!(err instanceof CheckFailed)) throw err;
      failure = `${err.what}: ${err.message}`;
    }
    const wasReady = getCondition(conditions, 'Ready');
    if (failure !== undefined) {
      setCondition(conditions, 'Ready', 'False', 'ScaledObjectCheckFailed', failure);
      setCondition(conditions, 'Active', 'Unknown', 'UnknownState', 'ScaledObject check failed');
      this.events.event(cur, 'Warning', 'ScaledObjectCheckFailed', failure);
    } else {
      if (wasReady?.status !== 'True') this.events.event(cur, 'Normal', 'ScaledObjectReady', msg.scalerReady);
      setCondition(conditions, 'Ready', 'True', 'ScaledObjectReady', message);
    }
    if (!spec.fallback || spec.fallback.failureThreshold < 0 || spec.fallback.replicas < 0) setCondition(conditions, 'Fallback', 'False', 'NoFallbackFound', msg.noFallback);
    await patchStatus<ScaledObjectStatus>(this.client, scaledObjectsRef, ns, name, (s) => {
      const { clearPaused, ...rest } = statusUpdates;
      Object.assign(s, rest);
      if (clearPaused) delete s.pausedReplicaCount;
      s.conditions = conditions;
    });
  }

  private async reconcileScaledObject(key: string, so: ScaledObject, spec: ScaledObjectSpec, conditions: KedaCondition[], st: Partial<ScaledObjectStatus> & { clearPaused?: boolean }): Promise<string> {
    const ns = so.metadata.namespace ?? '';
    const ann = so.metadata.annotations;
    const pausedInStatus = getCondition(conditions, 'Paused')?.status === 'True';
    if (needsPause(ann)) return this.handlePause(key, so, spec, conditions, pausedInStatus, st);
    if (pauseScaleIn(ann) || pauseScaleOut(ann)) {
      setCondition(conditions, 'Paused', 'True', 'ScaledObjectPaused', msg.paused);
      if (!pausedInStatus) this.events.event(so, 'Normal', 'ScaledObjectPaused', msg.paused);
    } else if (pausedInStatus) {
      setCondition(conditions, 'Paused', 'False', 'ScaledObjectUnpaused', msg.unpaused);
      this.events.event(so, 'Normal', 'ScaledObjectUnpaused', msg.unpaused);
      if (so.status?.pausedReplicaCount !== undefined) st.clearPaused = true;
    }
    if (!spec.target.name) throw new CheckFailed(msg.scaleTargetErr, 'ScaledObject.spec.scaleTargetRef.name is missing');
    const gvkr = this.checkTarget(so, spec, st);
    const bounds = replicaBoundsError(spec);
    if (bounds) throw new CheckFailed(msg.boundsErr, bounds);
    const trig = triggersError(spec);
    if (trig) throw new CheckFailed(msg.triggersErr, trig);
    st.triggersTypes = [...new Set(spec.triggers.map((t) => t.type))].join(',');
    const auths = [...new Set(spec.triggers.map((t) => t.authenticationRef?.name).filter((n): n is string => !!n))];
    if (auths.length) st.authenticationsTypes = auths.join(',');
    const generation = so.metadata.generation ?? 0;
    let loop = this.loops.get(key);
    let scalers: BuiltScaler[];
    if (loop && loop.isFor(so) && !loop.isStopped) scalers = loop.scalers;
    else {
      try {
        scalers = buildScalers(this.client, ns, so.metadata.name ?? '', spec.triggers);
      } catch (err) {
        this.events.event(so, 'Warning', 'KEDAScalerFailed', (err as Error).message);
        this.stopLoop(key);
        throw new CheckFailed(msg.hpaErr, (err as Error).message);
      }
      for (const b of scalers) this.events.event(so, 'Normal', 'KEDAScalersStarted', `Scaler ${b.trigger.type} is built`);
    }
    const specs = scalers.map((b) => b.scaler.metricSpec());
    const dup = duplicateMetricError(so.metadata.name ?? '', specs);
    if (dup) throw new CheckFailed(msg.hpaErr, dup);
    st.externalMetricNames = specs.flatMap((m) => (m.external ? [m.external.metric.name] : []));
    st.resourceMetricNames = specs.flatMap((m) => (m.resource ? [m.resource.name] : m.containerResource ? [m.containerResource.name] : []));
    if (!st.externalMetricNames.length) delete st.externalMetricNames;
    if (!st.resourceMetricNames.length) delete st.resourceMetricNames;
    const health = so.status?.health;
    if (health) st.health = Object.fromEntries(Object.entries(health).filter(([k]) => st.externalMetricNames?.includes(k)));
    await this.ensureHpa(so, spec, gvkr, specs, st);
    if (!loop || !loop.isFor(so) || loop.isStopped) {
      this.stopLoop(key);
      loop = new ScaleLoop(this.loopHost(), key, so.metadata.uid ?? '', generation, scalers, spec.pollingIntervalS * 1000);
      this.loops.set(key, loop);
      loop.start();
    }
    return msg.readySuccess;
  }

  private checkTarget(so: ScaledObject, spec: ScaledObjectSpec, st: Partial<ScaledObjectStatus>): Gvkr {
    const ns = so.metadata.namespace ?? '';
    let gvkr: Gvkr;
    try {
      const r = resolveTarget(this.client, spec.target.apiVersion, spec.target.kind);
      gvkr = r.gvkr;
      const scale = getScale(this.client, r.def, ns, spec.target.name);
      if (so.status?.originalReplicaCount === undefined) st.originalReplicaCount = scale.replicas;
    } catch (err) {
      if (!(err instanceof TargetError)) throw err;
      if (err.reason === 'parse') this.events.event(so, 'Warning', 'ScaledObjectUpdateFailed', err.message);
      else this.events.event(so, 'Warning', 'ScaledObjectCheckFailed', err.reason === 'notFound' ? msg.targetNotFound : msg.noSubresource);
      throw new CheckFailed(msg.scaleTargetErr, err.message);
    }
    st.scaleTargetKind = gvkString(gvkr);
    st.scaleTargetGVKR = gvkr;
    return gvkr;
  }

  private async ensureHpa(so: ScaledObject, spec: ScaledObjectSpec, gvkr: Gvkr, specs: ReturnType<BuiltScaler['scaler']['metricSpec']>[], st: Partial<ScaledObjectStatus>): Promise<void> {
    const ns = so.metadata.namespace ?? '';
    const want = desiredHpa(so, spec, gvkr, specs);
    const wantName = hpaNameOf(so, spec);
    const oldName = so.status?.hpaName;
    try {
      if (oldName && oldName !== wantName) await this.deleteHpa(ns, oldName);
      const have = this.client.get<KObject>(hpasRef, ns, wantName);
      if (!have) await this.client.create(hpasRef, ns, want);
      else if (hpaNeedsUpdate(want, have)) await this.client.update(hpasRef, ns, wantName, { ...want, metadata: { ...want.metadata, resourceVersion: have.metadata.resourceVersion } });
    } catch (err) {
      if (err instanceof ApiError) throw new CheckFailed(msg.hpaErr, err.message);
      throw err;
    }
    st.hpaName = wantName;
  }

  private async deleteHpa(ns: string, name: string): Promise<void> {
    try {
      await this.client.delete(hpasRef, ns, name);
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  private async handlePause(key: string, so: ScaledObject, spec: ScaledObjectSpec, conditions: KedaCondition[], pausedInStatus: boolean, st: Partial<ScaledObjectStatus>): Promise<string> {
    if (!pausedInStatus) this.events.event(so, 'Normal', 'ScaledObjectPaused', msg.paused);
    this.stopLoop(key);
    await this.deleteHpa(so.metadata.namespace ?? '', so.status?.hpaName ?? hpaNameOf(so, spec));
    const p = pausedReplicas(so.metadata.annotations);
    if (p.error) throw new CheckFailed('failed to scale target to paused replica count', `failed to parse paused replica count: ${p.error}`);
    if (p.value !== undefined) {
      try {
        const { def } = resolveTarget(this.client, spec.target.apiVersion, spec.target.kind);
        const scale = getScale(this.client, def, so.metadata.namespace ?? '', spec.target.name);
        if (scale.replicas !== p.value) await setScale(this.client, def, so.metadata.namespace ?? '', spec.target.name, p.value);
      } catch (err) {
        if (err instanceof TargetError || err instanceof ApiError) throw new CheckFailed('failed to scale target to paused replica count', `failed to get scale for target resource: ${err.message}`);
        throw err;
      }
      st.pausedReplicaCount = p.value;
    }
    setCondition(conditions, 'Paused', 'True', 'ScaledObjectPaused', msg.paused);
    return msg.paused;
  }

  private async finalize(key: string, so: ScaledObject): Promise<void> {
    this.stopLoop(key);
    if (!so.metadata.finalizers?.includes(finalizer)) return;
    const ns = so.metadata.namespace ?? '';
    const spec = scaledObjectSpec(so.spec);
    const original = so.status?.originalReplicaCount;
    if (spec.restoreToOriginalReplicaCount && original !== undefined) {
      try {
        const { def } = resolveTarget(this.client, spec.target.apiVersion, spec.target.kind);
        await setScale(this.client, def, ns, spec.target.name, original);
      } catch (err) {
        this.log.debug({ err, key }, 'restoring the original replica count failed');
      }
    }
    await this.deleteHpa(ns, so.status?.hpaName ?? hpaNameOf(so, spec));
    this.events.event(so, 'Normal', 'ScaledObjectDeleted', msg.scaledObjectRemoved);
    try {
      await this.client.guaranteedUpdate(scaledObjectsRef, ns, so.metadata.name ?? '', (cur) => ({ ...cur, metadata: { ...cur.metadata, finalizers: (cur.metadata.finalizers ?? []).filter((f) => f !== finalizer) } }));
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
  }

  private loopHost() {
    return { clock: this.clock, log: this.log, env: this.env, check: (loop: ScaleLoop, readings: Map<number, Reading>) => checkScaledObject(this, loop, readings) };
  }
}

export { setScale, getScale, resolveTarget };
