// PodDisruptionBudget status, as upstream's disruption controller keeps it: the pods the budget expects (from
// the scale of their controllers when the budget is a percentage or maxUnavailable), how many must stay healthy,
// how many are, and so how many disruptions the eviction API may allow. A budget it cannot compute allows none
// (condition reason SyncFailed). Upstream: pkg/controller/disruption.
import type { PodDisruptionBudget, PodDisruptionBudgetStatus } from '../generated/k8s/policy/v1.js';
import type { Pod } from '../generated/k8s/core/v1.js';
import type { EventRecorder } from '../client/event-recorder.js';
import { isPodReady } from '../machinery/conditions.js';
import { labelSelectorMatches } from '../machinery/labels.js';
import type { KObject, OwnerReference } from '../machinery/types.js';
import type { Change, ResourceRef } from '../client/types.js';
import type { Client } from '../client/client.js';
import { rfc3339 } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { defineController, type ControllerContext } from './runtime/index.js';
import { setCondition, type Condition } from './workload/status-conditions.js';
import { keyOf, splitKey } from '../machinery/object-key.js';

/** How long an admitted eviction counts against the budget before the pod must be terminating (upstream: 2 minutes). */
const deletionTimeoutMs = 2 * 60 * 1000;
const conditionType = 'DisruptionAllowed';

class SyncError extends Error {}

/** An int-or-percent scaled against `total`, rounding up; a string must be a percentage. */
function scaled(v: number | string, total: number): number {
  if (typeof v === 'number') return v;
  const m = /^(\d+)%$/.exec(v);
  if (!m) throw new SyncError(`invalid value for IntOrString: invalid type: string is not a percentage`);
  return Math.ceil((Number(m[1]) * total) / 100);
}

const groupOf = (apiVersion: string | undefined) => (apiVersion?.includes('/') ? apiVersion.split('/')[0] : '');

const component = 'controllermanager';
const pdbsIn = (client: Client, ns: string) => client.list<PodDisruptionBudget>('policy/v1/poddisruptionbudgets', ns);

/** The budgets a pod change concerns (its labels now or before match); a pod newly matching several is told so. */
function budgetsForPod(c: Change, { client, recorder }: ControllerContext): string[] {
  const ns = c.object.metadata.namespace ?? '';
  // Most namespaces have no budget: then a pod change concerns none (and needs no label comparison).
  const inNs = pdbsIn(client, ns);
  if (!inNs.length) return [];
  const matching = inNs.filter((p) => [c.object, c.previous].some((o) => o && labelSelectorMatches(p.spec?.selector, o.metadata.labels ?? {})));
  const labelsChanged = c.type === 'ADDED' || (c.type === 'MODIFIED' && JSON.stringify(c.previous?.metadata.labels ?? {}) !== JSON.stringify(c.object.metadata.labels ?? {}));
  const now = matching.filter((p) => labelSelectorMatches(p.spec?.selector, c.object.metadata.labels ?? {}));
  if (labelsChanged && now.length > 1) {
    recorder(component).event(c.object, 'Warning', 'MultiplePodDisruptionBudgets', `Pod "${ns}"/"${c.object.metadata.name}" matches multiple PodDisruptionBudgets.  Chose "${now[0].metadata?.name}" arbitrarily.`);
  }
  return matching.map(keyOf);
}

export const disruptionController = defineController({
  name: 'disruption',
  for: { resource: 'policy/v1/poddisruptionbudgets', when: (c) => c.type !== 'DELETED' },
  watches: [
    { resource: 'v1/pods', map: budgetsForPod },
    // A controller's scale feeds expectedPods and desiredHealthy.
    ...['apps/v1/deployments', 'apps/v1/replicasets', 'apps/v1/statefulsets', 'v1/replicationcontrollers'].map((resource) => ({
      resource, map: (c: Change, { client }: ControllerContext) => pdbsIn(client, c.object.metadata.namespace ?? '').map(keyOf),
    })),
  ],
  setup: (ctx) => new DisruptionReconciler(ctx.client, ctx.log, ctx.recorder(component)),
});

class DisruptionReconciler {
  constructor(private readonly client: Client, private readonly log: Logger, private readonly events: EventRecorder) {}

  async reconcile(key: string): Promise<void | number> {
    const { namespace: ns, name } = splitKey(key);
    const pdb = this.client.get<PodDisruptionBudget>('policy/v1/poddisruptionbudgets', ns, name);
    if (!pdb) return;
    try {
      return await this.trySync(pdb);
    } catch (err) {
      if (!(err instanceof SyncError)) throw err;
      this.log.debug({ pdb: key, err: err.message }, 'failed to sync PDB');
      await this.failSafe(pdb, err.message);
    }
  }

  private async trySync(pdb: PodDisruptionBudget): Promise<number | undefined> {
    const owner = pdb;
    const pods = (this.client.list('v1/pods', pdb.metadata?.namespace)).filter((p) => labelSelectorMatches(pdb.spec?.selector, p.metadata?.labels ?? {}));
    let expected: number;
    let desired: number;
    let unmanaged: string[];
    try {
      ({ expected, desired, unmanaged } = this.expectedPodCount(pdb, pods));
    } catch (err) {
      if (err instanceof SyncError) this.events.event(owner, 'Warning', 'CalculateExpectedPodCountFailed', `Failed to calculate the number of expected pods: ${err.message}`);
      throw err;
    }
    const now = this.client.clock.nowMs();
    const disrupted: Record<string, string> = {};
    let recheckIn: number | undefined;
    for (const pod of pods) {
      const at = pdb.status?.disruptedPods?.[pod.metadata?.name ?? ''];
      if (!at || pod.metadata?.deletionTimestamp) continue;
      const since = Date.parse(at);
      if (Number.isNaN(since)) continue;
      const left = since + deletionTimeoutMs - now;
      if (left < 0) {
        this.events.event(pod, 'Warning', 'NotDeleted', `Pod was expected by PDB ${pdb.metadata?.namespace}/${pdb.metadata?.namespace} to be deleted but it wasn't`);
        continue;
      }
      disrupted[pod.metadata?.name ?? ''] = at;
      recheckIn = Math.min(recheckIn ?? left, left);
    }
    const healthy = pods.filter((p) => !p.metadata?.deletionTimestamp && !disrupted[p.metadata?.name ?? ''] && isPodReady(p)).length;
    const allowed = expected <= 0 || healthy - desired <= 0 ? 0 : healthy - desired;
    const old = pdb.status;
    const upToDate = old && old.currentHealthy === healthy && old.desiredHealthy === desired && old.expectedPods === expected && old.disruptionsAllowed === allowed
      && JSON.stringify(old.disruptedPods ?? {}) === JSON.stringify(disrupted) && old.observedGeneration === pdb.metadata?.generation && conditionUpToDate(old, allowed);
    if (upToDate) return recheckIn;
    // Events that upstream records on every sync go out when the status changes, so they do not pile up writes.
    if (!pods.length) this.events.event(owner, 'Normal', 'NoPods', 'No matching pods found');
    if (unmanaged.length) {
      this.events.event(owner, 'Warning', 'UnmanagedPods', `Pods selected by this PodDisruptionBudget (selector: ${selectorText(pdb)}) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set ".spec.minAvailable" field of the PDB to an integer value.`);
    }
    const generation = pdb.metadata?.generation;
    const status: PodDisruptionBudgetStatus = {
      ...(generation ? { observedGeneration: generation } : {}),
      ...(Object.keys(disrupted).length ? { disruptedPods: disrupted } : {}),
      disruptionsAllowed: allowed, currentHealthy: healthy, desiredHealthy: desired, expectedPods: expected,
      conditions: this.withCondition(old?.conditions, allowed > 0 ? 'True' : 'False', allowed > 0 ? 'SufficientPods' : 'InsufficientPods', '', generation),
    };
    await this.writeStatus(pdb, status);
    return recheckIn;
  }

  /** Upstream getExpectedPodCount: an integer minAvailable counts the pods; otherwise the controllers' scale does. */
  private expectedPodCount(pdb: PodDisruptionBudget, pods: Pod[]): { expected: number; desired: number; unmanaged: string[] } {
    const spec = pdb.spec ?? {};
    if (spec.maxUnavailable !== undefined && spec.maxUnavailable !== null) {
      const { expected, unmanaged } = this.expectedScale(pods);
      return { expected, desired: Math.max(0, expected - scaled(spec.maxUnavailable, expected)), unmanaged };
    }
    if (spec.minAvailable === undefined || spec.minAvailable === null) return { expected: 0, desired: 0, unmanaged: [] };
    if (typeof spec.minAvailable === 'number') return { expected: pods.length, desired: spec.minAvailable, unmanaged: [] };
    const { expected, unmanaged } = this.expectedScale(pods);
    return { expected, desired: scaled(spec.minAvailable, expected), unmanaged };
  }

  /** The sum of the scale of the pods' controllers (each counted once); pods without a controller are unmanaged. */
  private expectedScale(pods: Pod[]): { expected: number; unmanaged: string[] } {
    const scales = new Map<string, number>();
    const unmanaged: string[] = [];
    for (const pod of pods) {
      const ref = pod.metadata?.ownerReferences?.find((r) => r.controller) as OwnerReference | undefined;
      if (!ref) {
        unmanaged.push(pod.metadata?.name ?? '');
        continue;
      }
      if (scales.has(ref.uid)) continue;
      const found = this.controllerScale(ref, pod.metadata?.namespace ?? '');
      if (!found) throw new SyncError(`found no controllers for pod "${pod.metadata?.name}"`);
      scales.set(found.uid, found.scale);
    }
    let expected = 0;
    for (const n of scales.values()) expected += n;
    return { expected, unmanaged };
  }

  /** Finds the controller a pod's controllerRef names, going from a ReplicaSet to its Deployment, and reads its replicas. */
  private controllerScale(ref: OwnerReference, ns: string): { uid: string; scale: number } | undefined {
    const group = groupOf(ref.apiVersion);
    const get = (res: ResourceRef, name: string) => this.client.get(res, ns, name);
    const replicas = (o: KObject) => Number((o.spec as { replicas?: number } | undefined)?.replicas ?? 0);
    if (ref.kind === 'ReplicaSet' && (group === 'apps' || group === 'extensions')) {
      const rs = get('apps/v1/replicasets', ref.name);
      if (rs && rs.metadata.uid === ref.uid) {
        const dref = rs.metadata.ownerReferences?.find((r) => r.controller);
        if (dref?.kind === 'Deployment') {
          const d = ['apps', 'extensions'].includes(groupOf(dref.apiVersion)) ? get('apps/v1/deployments', dref.name) : undefined;
          if (d && d.metadata.uid === dref.uid) return { uid: d.metadata.uid ?? '', scale: replicas(d) };
        } else {
          return { uid: rs.metadata.uid ?? '', scale: replicas(rs) };
        }
      }
    }
    const builtin: Record<string, [string, string]> = { ReplicationController: ['', 'v1/replicationcontrollers'], StatefulSet: ['apps', 'apps/v1/statefulsets'] };
    const b = builtin[ref.kind];
    if (b && b[0] === group) {
      const o = get(b[1], ref.name);
      if (o && o.metadata.uid === ref.uid) return { uid: o.metadata.uid ?? '', scale: replicas(o) };
    }
    // Any other controller with a scale subresource.
    const def = this.client.resourceForKind(group, ref.kind);
    if (!def) throw new SyncError(`no matches for kind "${ref.kind}" in version "${ref.apiVersion}"`);
    if (!def.subresources?.includes('scale')) throw new SyncError(`${def.plural}${def.group ? `.${def.group}` : ''} does not implement the scale subresource`);
    const o = get(def, ref.name);
    if (!o || o.metadata.uid !== ref.uid) return undefined;
    return { uid: o.metadata.uid ?? '', scale: replicas(o) };
  }

  /** Upstream failSafe: whatever went wrong, the budget allows no disruption until a sync succeeds. */
  private async failSafe(pdb: PodDisruptionBudget, message: string): Promise<void> {
    const old = pdb.status ?? ({} as PodDisruptionBudgetStatus);
    const status: PodDisruptionBudgetStatus = {
      ...old,
      disruptionsAllowed: 0, currentHealthy: old.currentHealthy ?? 0, desiredHealthy: old.desiredHealthy ?? 0, expectedPods: old.expectedPods ?? 0,
      conditions: this.withCondition(old.conditions, 'False', 'SyncFailed', message, old.observedGeneration),
    };
    if (JSON.stringify(status) === JSON.stringify(old)) return;
    await this.writeStatus(pdb, status);
  }

  private withCondition(conds: PodDisruptionBudgetStatus['conditions'], status: string, reason: string, message: string, observedGeneration: number | undefined) {
    const next: Condition = { type: conditionType, status, reason, message, ...(observedGeneration ? { observedGeneration } : {}) };
    const list = setCondition(conds as Condition[] | undefined, next, rfc3339(this.client.clock.now()));
    // setCondition keeps an unchanged condition as it was; observedGeneration still follows the budget.
    return list.map((c) => (c.type === conditionType ? { ...c, ...(observedGeneration ? { observedGeneration } : {}) } : c)) as PodDisruptionBudgetStatus['conditions'];
  }

  private async writeStatus(pdb: PodDisruptionBudget, status: PodDisruptionBudgetStatus): Promise<void> {
    const def = this.client.resource('policy/v1/poddisruptionbudgets')!;
    await this.client.guaranteedUpdate(def, pdb.metadata?.namespace ?? '', pdb.metadata?.name ?? '', (cur: KObject) => ({ ...cur, status }), { subresource: 'status' });
  }
}

/** Upstream ConditionsAreUpToDate: the DisruptionAllowed condition agrees with disruptionsAllowed. */
function conditionUpToDate(st: PodDisruptionBudgetStatus, allowed: number): boolean {
  const c = st.conditions?.find((x) => x.type === conditionType);
  if (!c) return false;
  return allowed > 0 ? c.status === 'True' && c.reason === 'SufficientPods' : c.status === 'False' && c.reason === 'InsufficientPods';
}

/** The selector as Go's %v prints a *metav1.LabelSelector, which is what upstream's event message shows. */
function selectorText(pdb: PodDisruptionBudget): string {
  const sel = pdb.spec?.selector;
  if (!sel) return 'nil';
  const labels = Object.keys(sel.matchLabels ?? {}).sort().map((k) => `${k}: ${sel.matchLabels?.[k]},`).join('');
  const exprs = (sel.matchExpressions ?? []).map((e) => `LabelSelectorRequirement{Key:${e.key},Operator:${e.operator},Values:[${(e.values ?? []).join(' ')}],},`).join('');
  return `&LabelSelector{MatchLabels:map[string]string{${labels}},MatchExpressions:[]LabelSelectorRequirement{${exprs}},}`;
}
