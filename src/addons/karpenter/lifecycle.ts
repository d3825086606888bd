// The NodeClaim lifecycle as a stage table (when / delay / next), as kubernetes-sigs/karpenter's nodeclaim
// lifecycle controller and the kwok cloud play it out: Launched (after the launch delay the cloud picks the
// cheapest offering and the claim gets providerID, capacity, allocatable, imageID and the instance's labels; the
// Node object appears), Registered (the unregistered taint goes, the node is labelled registered, owned by the
// claim and finalized), startup taints removed by the simulated daemon, Initialized and Ready once the Node is
// Ready without startup taints. A claim whose node has not registered within the registration TTL is deleted.
import type { Node } from '../../generated/k8s/core/v1.js';
import { isNodeReady } from '../../machinery/conditions.js';
import type { KObject } from '../../machinery/types.js';
import { rfc3339 } from '../../util/clock.js';
import { chooseLaunch, imageId, launchedLabels, nodeFor } from './cloud.js';
import type { Catalog } from './catalog.js';
import type { KarpenterSettings } from './settings.js';
import { apiVersion, conditionTypes as ct, labels as wk, terminationFinalizer, unregisteredTaint, type Condition, type NodeClaim } from './types.js';

export interface StageContext {
  claim: NodeClaim;
  node: Node | undefined;
  now: Date;
  settings: KarpenterSettings;
  catalog: Catalog;
}

export interface Stage {
  name: string;
  /** Whether this stage is the claim's next step. */
  when(c: StageContext): boolean;
  /** How long after `since` the step runs (ms). */
  delay(s: KarpenterSettings): number;
  /** The moment the delay counts from. */
  since(c: StageContext): string | undefined;
}

export function condition(claim: { status?: { conditions?: Condition[] } }, type: string): Condition | undefined {
  return claim.status?.conditions?.find((c) => c.type === type);
}

export const isTrue = (claim: NodeClaim, type: string) => condition(claim, type)?.status === 'True';

const startupTaintKeys = (c: StageContext) => new Set((c.claim.spec.startupTaints ?? []).map((t) => `${t.key}:${t.effect}`));
const hasStartupTaints = (c: StageContext) => {
  const keys = startupTaintKeys(c);
  return keys.size > 0 && (c.node?.spec?.taints ?? []).some((t) => keys.has(`${t.key}:${t.effect}`));
};

/** The stages in order; the first whose `when` holds is the claim's next. */
export const stages: readonly Stage[] = [
  { name: 'launch', when: (c) => !isTrue(c.claim, ct.launched), delay: (s) => s.launchSeconds * 1000, since: (c) => c.claim.metadata.creationTimestamp },
  { name: 'create-node', when: (c) => !c.node && !isTrue(c.claim, ct.registered), delay: () => 0, since: (c) => condition(c.claim, ct.launched)?.lastTransitionTime },
  { name: 'register', when: (c) => !!c.node && !isTrue(c.claim, ct.registered), delay: (s) => s.registrationSeconds * 1000, since: (c) => c.node?.metadata?.creationTimestamp },
  { name: 'remove-startup-taints', when: (c) => isTrue(c.claim, ct.registered) && hasStartupTaints(c), delay: (s) => s.startupTaintSeconds * 1000, since: (c) => condition(c.claim, ct.registered)?.lastTransitionTime },
  { name: 'initialize', when: (c) => isTrue(c.claim, ct.registered) && !isTrue(c.claim, ct.initialized) && !!c.node && isNodeReady(c.node) && !hasStartupTaints(c), delay: () => 0, since: () => undefined },
];

export function nextStage(c: StageContext): Stage | undefined {
  return stages.find((s) => s.when(c));
}

/** Ms until the stage is due (0 or less: now). */
export function dueIn(stage: Stage, c: StageContext): number {
  const since = stage.since(c);
  const from = since ? Date.parse(since) : c.now.getTime();
  return from + stage.delay(c.settings) - c.now.getTime();
}

export function setCondition(status: NonNullable<NodeClaim['status']>, type: string, value: Condition['status'], reason: string, message: string, now: Date, generation?: number): void {
  const conds = (status.conditions ??= []);
  const cur = conds.find((c) => c.type === type);
  if (cur && cur.status === value && cur.reason === reason && cur.message === message) return;
  const next: Condition = { type, status: value, reason, message, lastTransitionTime: cur && cur.status === value ? cur.lastTransitionTime : rfc3339(now), observedGeneration: generation };
  if (cur) conds.splice(conds.indexOf(cur), 1, next);
  else conds.push(next);
}

/** The initial (Unknown) conditions of a new claim, as upstream's status shows them. */
export function initialConditions(claim: NodeClaim, now: Date): void {
  const status = (claim.status ??= {});
  for (const t of [ct.launched, ct.registered, ct.initialized]) setCondition(status, t, 'Unknown', 'AwaitingReconciliation', 'object is awaiting reconciliation', now, claim.metadata.generation);
  setCondition(status, ct.ready, 'Unknown', 'UnhealthyDependents', 'Launched=Unknown, Registered=Unknown, Initialized=Unknown', now, claim.metadata.generation);
}

export function readyCondition(status: NonNullable<NodeClaim['status']>, now: Date, generation?: number): void {
  const deps = [ct.launched, ct.registered, ct.initialized].map((t) => [t, status.conditions?.find((c) => c.type === t)?.status ?? 'Unknown'] as const);
  const notTrue = deps.filter(([, s]) => s !== 'True');
  if (!notTrue.length) setCondition(status, ct.ready, 'True', 'Ready', '', now, generation);
  else setCondition(status, ct.ready, notTrue.some(([, s]) => s === 'False') ? 'False' : 'Unknown', 'UnhealthyDependents', notTrue.map(([t, s]) => `${t}=${s}`).join(', '), now, generation);
}

/** Launch: the cloud's choice written into the claim (labels and status). Undefined when nothing fits. */
export function launched(claim: NodeClaim, catalog: Catalog, now: Date): NodeClaim | undefined {
  const l = chooseLaunch(claim, catalog);
  if (!l) return undefined;
  const name = claim.metadata.name ?? '';
  const status = { ...(claim.status ?? {}), providerID: `kwok://${name}`, imageID: imageId, capacity: { ...l.type.capacity }, allocatable: { ...l.type.allocatable } };
  setCondition(status, ct.launched, 'True', 'Launched', '', now, claim.metadata.generation);
  readyCondition(status, now, claim.metadata.generation);
  return { ...claim, metadata: { ...claim.metadata, labels: launchedLabels(claim, l) }, status };
}

export { nodeFor };

/** Registration: what the node gets (taint removed, labels, owner, finalizer). */
export function registeredNode(node: Node, claim: NodeClaim): KObject {
  const taints = (node.spec?.taints ?? []).filter((t) => !(t.key === unregisteredTaint.key && t.effect === unregisteredTaint.effect));
  const finalizers = [...new Set([...(node.metadata?.finalizers ?? []), terminationFinalizer])];
  const owners = (node.metadata?.ownerReferences ?? []).filter((o) => o.uid !== claim.metadata.uid);
  owners.push({ apiVersion, kind: 'NodeClaim', name: claim.metadata.name ?? '', uid: claim.metadata.uid ?? '', blockOwnerDeletion: true });
  return {
    ...(node),
    metadata: { ...(node.metadata as KObject['metadata']), labels: { ...(claim.metadata.labels ?? {}), ...(node.metadata?.labels ?? {}), [wk.registered]: 'true' }, finalizers, ownerReferences: owners },
    spec: { ...(node.spec ?? {}), taints },
  };
}
