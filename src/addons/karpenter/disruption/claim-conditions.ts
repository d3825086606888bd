// The NodeClaim disruption conditions as pure functions (upstream's nodeclaim/disruption sub-controllers):
// Consolidatable once consolidateAfter has passed since the last pod event (or since initialisation), Drifted when
// the NodePool's template hash or requirements no longer match, and when an expireAfter runs out.
import { parseGoDuration } from '../../../util/duration.js';
import { annotations as ann, conditionTypes, type Condition, type NodeClaim, type NodePool, type NodeSelectorRequirementWithMinValues } from '../types.js';

/** A `consolidateAfter`/`expireAfter` in ms; undefined for `Never` or an unparsable value. */
export function durationMs(text: string | undefined): number | undefined {
  if (typeof text !== 'string' || text === 'Never') return undefined;
  return parseGoDuration(text);
}

export const getCondition = (claim: NodeClaim, type: string): Condition | undefined => claim.status?.conditions?.find((c) => c.type === type);

/**
 * When the NodeClaim becomes Consolidatable: consolidateAfter after its last pod event (or after it was
 * initialised); undefined when consolidation is disabled (`Never`) or it is not initialised.
 */
export function consolidatableAt(pool: NodePool, claim: NodeClaim): number | undefined {
  const after = durationMs(pool.spec?.disruption?.consolidateAfter ?? '0s');
  if (after === undefined) return undefined;
  const init = getCondition(claim, conditionTypes.initialized);
  if (init?.status !== 'True') return undefined;
  const last = Date.parse(claim.status?.lastPodEventTime ?? '');
  const from = Number.isFinite(last) ? last : Date.parse(init.lastTransitionTime);
  return (Number.isFinite(from) ? from : 0) + after;
}

function requirementHolds(r: NodeSelectorRequirementWithMinValues, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  const values = Array.isArray(r.values) ? r.values : [];
  switch (r.operator) {
    case 'In': return !has || values.includes(v!);
    case 'NotIn': return !has || !values.includes(v!);
    case 'Exists': return true;
    case 'DoesNotExist': return !has;
    case 'Gt': case 'Gte': case 'Lt': case 'Lte': {
      if (!has) return true;
      const n = Number(v);
      const bound = Number(values[0]);
      if (!Number.isFinite(n) || !Number.isFinite(bound)) return false;
      return r.operator === 'Gt' ? n > bound : r.operator === 'Gte' ? n >= bound : r.operator === 'Lt' ? n < bound : n <= bound;
    }
    default: return true;
  }
}

/** Why the NodeClaim drifted from its NodePool (`NodePoolDrifted`, `RequirementsDrifted`), or undefined. */
export function driftReason(pool: NodePool, claim: NodeClaim): string | undefined {
  const pa = pool.metadata.annotations ?? {};
  const ca = claim.metadata.annotations ?? {};
  const ph = pa[ann.nodePoolHash], pv = pa[ann.nodePoolHashVersion], ch = ca[ann.nodePoolHash], cv = ca[ann.nodePoolHashVersion];
  if (ph !== undefined && ch !== undefined && (pv === undefined || cv === undefined || pv === cv) && ph !== ch) return 'NodePoolDrifted';
  const labels = claim.metadata.labels ?? {};
  const reqs = Array.isArray(pool.spec?.template?.spec?.requirements) ? pool.spec.template.spec.requirements : [];
  for (const r of reqs.slice(0, 100)) if (!requirementHolds(r, labels)) return 'RequirementsDrifted';
  return undefined;
}

/** When the NodeClaim expires (creation + expireAfter), or undefined. */
export function expiresAt(claim: NodeClaim): number | undefined {
  const ms = durationMs(claim.spec?.expireAfter);
  const created = Date.parse(claim.metadata.creationTimestamp ?? '');
  return ms === undefined || !Number.isFinite(created) ? undefined : created + ms;
}

/** The conditions with `type` set (status True, reason = `reason`), keeping lastTransitionTime when unchanged. */
export function setTrue(conds: readonly Condition[], type: string, reason: string, message: string, nowIso: string, generation?: number): Condition[] {
  const cur = conds.find((c) => c.type === type);
  if (cur && cur.status === 'True' && cur.reason === reason && cur.message === message) return [...conds];
  const next: Condition = { type, status: 'True', reason, message, lastTransitionTime: cur?.status === 'True' ? cur.lastTransitionTime : nowIso };
  if (generation !== undefined) next.observedGeneration = generation;
  return [...conds.filter((c) => c.type !== type), next];
}

export const clearCondition = (conds: readonly Condition[], type: string): Condition[] => conds.filter((c) => c.type !== type);
