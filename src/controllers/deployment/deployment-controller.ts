// The Deployment controller (upstream pkg/controller/deployment): owns ReplicaSets by selector, and on each sync
// either only reports status (being deleted), scales proportionally (paused, or spec.replicas changed), or rolls
// out with the RollingUpdate or Recreate strategy.
import { drive } from '../../util/steps.js';
import type { Deployment, ReplicaSet } from '../../generated/k8s/apps/v1.js';
import type { Pod } from '../../generated/k8s/core/v1.js';
import { EventRecorder } from '../../client/event-recorder.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { Change } from '../../client/types.js';
import { defineController, indexes, indexNames, type ControllerContext } from '../runtime/index.js';
import { claim } from '../workload/claim.js';
import { controllerRef } from '../workload/owner.js';
import type { Informer } from '../../client/informer.js';
import { ownerKeysFor } from '../workload/dependents.js';
import { getCondition, newCondition, setCondition } from './deployment-conditions.js';
import { activeReplicaSets, desiredReplicasAnnotation, hasProgressDeadline, reasons, replicasOf } from './deployment-util.js';
import { syncDeploymentStatus } from './progress.js';
import { rolloutRecreate } from './recreate.js';
import { cleanupDeployment, getReplicaSets } from './revisions.js';
import { rolloutRolling } from './rolling.js';
import { scale } from './scaling.js';
import { SyncContext, type Services } from './sync-context.js';
import { keyFor, splitKey } from '../../machinery/object-key.js';

const byName = (a: KObject, b: KObject) => {
  const x = a.metadata.name ?? '';
  const y = b.metadata.name ?? '';
  return x < y ? -1 : x > y ? 1 : 0;
};

const byOwner = indexNames.byOwner;

/** The Deployment a deleted pod's ReplicaSet belongs to, when it rolls out with Recreate (which waits for old pods to go). */
function recreateWaitingOn(client: Client, c: Change): string[] {
  if (c.type !== 'DELETED') return [];
  const ref = controllerRef(c.object);
  if (ref?.kind !== 'ReplicaSet') return [];
  const ns = c.object.metadata.namespace ?? '';
  const rs = client.get('apps/v1/replicasets', ns, ref.name);
  const owner = rs && controllerRef(rs);
  if (owner?.kind !== 'Deployment') return [];
  const d = client.get<Deployment>('apps/v1/deployments', ns, owner.name);
  return d?.spec?.strategy?.type === 'Recreate' ? [keyFor(ns, owner.name)] : [];
}

export const deploymentController = defineController({
  name: 'deployment',
  for: { resource: 'apps/v1/deployments', when: (c) => c.type !== 'DELETED' },
  watches: [
    { resource: 'apps/v1/replicasets', map: (c, { client }) => ownerKeysFor(client, c, 'Deployment', 'apps/v1/deployments') },
    { resource: 'v1/pods', map: (c, { client }) => recreateWaitingOn(client, c) },
  ],
  setup: (ctx) => new DeploymentReconciler(ctx),
});

class DeploymentReconciler {
  private readonly client: Client;
  private readonly svc: Services;
  /** ReplicaSets by controller uid (`orphan/<namespace>` for those no controller owns). */
  private readonly replicaSets: Informer<KObject>;

  constructor({ client, clock, log, informers }: ControllerContext) {
    this.client = client;
    const replicaSets = (this.replicaSets = informers.informer('apps/v1/replicasets', { [byOwner]: indexes.byOwner }));
    this.svc = {
      client, clock, log, events: new EventRecorder(client, { component: 'deployment-controller' }),
      rsDef: client.resource('apps/v1/replicasets')!, deployDef: client.resource('apps/v1/deployments')!,
      track: (rs) => replicaSets.track(rs),
    };
  }

  reconcile(key: string): Promise<number | void> {
    return this.sync(key);
  }

  private async sync(key: string): Promise<number | void> {
    const { namespace, name } = splitKey(key);
    const stored = this.client.get<Deployment>('apps/v1/deployments', namespace, name);
    if (!stored) return;
    const ctx = new SyncContext(this.svc, structuredClone(stored));
    const d = ctx.d;
    const sel = d.spec?.selector;
    if (!sel || (!Object.keys(sel.matchLabels ?? {}).length && !(sel.matchExpressions ?? []).length)) {
      ctx.event('Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.');
      if ((d.status?.observedGeneration ?? 0) < (d.metadata?.generation ?? 0)) await ctx.writeStatus({ ...d.status, observedGeneration: d.metadata?.generation });
      return;
    }
    const rsList = await this.replicaSetsFor(d);
    if (d.metadata?.deletionTimestamp) {
      const { newRS, oldRSs } = await getReplicaSets(ctx, rsList);
      await syncDeploymentStatus(ctx, [...oldRSs, ...(newRS ? [newRS] : [])], newRS);
      return;
    }
    await this.checkPausedConditions(ctx);
    if (ctx.d.spec?.paused || (await this.isScalingEvent(ctx, rsList))) {
      await this.scaleOnly(ctx, rsList);
      return ctx.requeueAfterMs;
    }
    const current = ctx.freshList(rsList);
    if (ctx.d.spec?.strategy?.type === 'Recreate') await rolloutRecreate(ctx, current, this.podsByReplicaSet(ctx.d, current));
    else await rolloutRolling(ctx, current);
    return ctx.requeueAfterMs;
  }

  /** Adopts orphaned ReplicaSets the selector matches and releases owned ones it no longer matches. */
  private async replicaSetsFor(d: Deployment): Promise<ReplicaSet[]> {
    const ns = d.metadata?.namespace ?? '';
    const uid = d.metadata?.uid;
    // Owned ones and matching orphans, in name order as a list of the namespace would give them.
    const owned = uid ? this.replicaSets.byIndex(byOwner, uid).filter((rs) => rs.metadata.namespace === ns) : [];
    const orphans = this.replicaSets.byIndex(byOwner, `orphan/${ns}`).filter((rs) => labelSelectorMatches(d.spec?.selector, rs.metadata.labels ?? {}));
    const candidates = [...owned, ...orphans].sort(byName);
    const claimed = await drive(claim(this.client, this.svc.rsDef, d, d.spec?.selector, candidates));
    for (const rs of claimed) this.replicaSets.track(rs);
    return claimed;
  }

  private podsByReplicaSet(d: Deployment, rsList: ReplicaSet[]): Map<string, Pod[]> {
    const uids = new Set(rsList.map((rs) => rs.metadata?.uid ?? ''));
    const out = new Map<string, Pod[]>();
    for (const p of this.client.list('v1/pods', d.metadata?.namespace ?? '')) {
      const uid = controllerRef(p)?.uid;
      if (!uid || !uids.has(uid) || !labelSelectorMatches(d.spec?.selector, p.metadata?.labels ?? {})) continue;
      const list = out.get(uid) ?? [];
      list.push(p);
      out.set(uid, list);
    }
    return out;
  }

  /** Paused and resumed deployments get an Unknown Progressing condition, so a long pause never counts as no progress. */
  private async checkPausedConditions(ctx: SyncContext): Promise<void> {
    if (!hasProgressDeadline(ctx.d)) return;
    const cond = getCondition(ctx.d.status, 'Progressing');
    if (cond?.reason === reasons.timedOut) return;
    const pausedCond = cond?.reason === reasons.paused;
    const status = structuredClone(ctx.d.status ?? {});
    if (ctx.d.spec?.paused && !pausedCond) {
      setCondition(status, newCondition('Progressing', 'Unknown', reasons.paused, 'Deployment is paused', ctx.now()));
    } else if (!ctx.d.spec?.paused && pausedCond) {
      setCondition(status, newCondition('Progressing', 'Unknown', reasons.resumed, 'Deployment is resumed', ctx.now()));
    } else return;
    await ctx.writeStatus(status);
  }

  /** spec.replicas differs from what an active ReplicaSet was last sized for. */
  private async isScalingEvent(ctx: SyncContext, rsList: ReplicaSet[]): Promise<boolean> {
    const { newRS, oldRSs } = await getReplicaSets(ctx, rsList);
    const want = String(replicasOf(ctx.d));
    return activeReplicaSets(ctx.freshList([...oldRSs, ...(newRS ? [newRS] : [])])).some((rs) => {
      const desired = rs.metadata?.annotations?.[desiredReplicasAnnotation];
      return desired !== undefined && desired !== want;
    });
  }

  private async scaleOnly(ctx: SyncContext, rsList: ReplicaSet[]): Promise<void> {
    const { newRS, oldRSs } = await getReplicaSets(ctx, ctx.freshList(rsList));
    await scale(ctx, newRS, oldRSs);
    if (ctx.d.spec?.paused) await cleanupDeployment(ctx, oldRSs);
    const all = ctx.freshList([...oldRSs, ...(newRS ? [newRS] : [])]);
    await syncDeploymentStatus(ctx, all, newRS && ctx.fresh(newRS));
  }
}
