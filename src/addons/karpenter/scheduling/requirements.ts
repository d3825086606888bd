// Node requirements as sets, the way Karpenter reasons about them: each key allows a set of values (or every value
// but a set), optionally bounded (Gt/Lt on integers), and says whether a node without the label satisfies it.
// Intersecting a NodePool's requirements with a pod's narrows a NodeClaim; an empty result means "incompatible".
import type { NodeSelectorRequirement, Pod } from '../../../generated/k8s/core/v1.js';
import { getOwn, setOwn } from '../../../util/own.js';
import { labels as wk, type NodeSelectorRequirementWithMinValues } from '../types.js';

export interface Requirement {
  key: string;
  /** true: every value except `values`; false: exactly `values`. */
  complement: boolean;
  values: Set<string>;
  /** Exclusive integer bounds (Gt/Lt; Gte/Lte are turned into these). */
  gt?: number;
  lt?: number;
  /** Whether a node lacking the label satisfies it (NotIn, DoesNotExist). */
  allowAbsent: boolean;
  minValues?: number;
}

export type Requirements = Map<string, Requirement>;

/** Labels whose values the cloud provider knows (a pod may require them of a NodePool that does not list them). */
export const wellKnownKeys = new Set<string>([
  wk.instanceType, wk.zone, wk.region, wk.capacityType, wk.arch, wk.os, wk.hostname, wk.nodePool,
  wk.instanceFamily, wk.instanceSize, wk.instanceCpu, wk.instanceMemory, wk.instanceGpuCount, wk.instanceGpuName,
  'node.kubernetes.io/windows-build', 'failure-domain.beta.kubernetes.io/zone', 'beta.kubernetes.io/instance-type',
  'beta.kubernetes.io/arch', 'beta.kubernetes.io/os',
]);

const maxValues = 1000;

export function requirement(r: { key: string; operator: string; values?: readonly string[]; minValues?: number }): Requirement {
  const values = new Set((r.values ?? []).slice(0, maxValues));
  const num = () => {
    const n = Number.parseInt([...values][0] ?? '', 10);
    return Number.isFinite(n) ? n : undefined;
  };
  const base = { key: r.key, minValues: r.minValues };
  switch (r.operator) {
    case 'In': return { ...base, complement: false, values, allowAbsent: false };
    case 'NotIn': return { ...base, complement: true, values, allowAbsent: true };
    case 'Exists': return { ...base, complement: true, values: new Set(), allowAbsent: false };
    case 'DoesNotExist': return { ...base, complement: false, values: new Set(), allowAbsent: true };
    case 'Gt': case 'Gte': case 'Lt': case 'Lte': {
      const n = num();
      if (n === undefined) return { ...base, complement: false, values: new Set(), allowAbsent: false };
      const req: Requirement = { ...base, complement: true, values: new Set(), allowAbsent: false };
      if (r.operator === 'Gt') req.gt = n;
      if (r.operator === 'Gte') req.gt = n - 1;
      if (r.operator === 'Lt') req.lt = n;
      if (r.operator === 'Lte') req.lt = n + 1;
      return req;
    }
    default: return { ...base, complement: false, values: new Set(), allowAbsent: false };
  }
}

function inBounds(r: Requirement, v: string): boolean {
  if (r.gt === undefined && r.lt === undefined) return true;
  if (!/^-?\d+$/.test(v)) return false;
  const n = Number(v);
  return (r.gt === undefined || n > r.gt) && (r.lt === undefined || n < r.lt);
}

/** Whether `value` (undefined: the label is absent) satisfies the requirement. */
export function allows(r: Requirement, value: string | undefined): boolean {
  if (value === undefined) return r.allowAbsent;
  if (!inBounds(r, value)) return false;
  return r.complement ? !r.values.has(value) : r.values.has(value);
}

export function intersect(a: Requirement, b: Requirement): Requirement {
  const gt = a.gt === undefined ? b.gt : b.gt === undefined ? a.gt : Math.max(a.gt, b.gt);
  const lt = a.lt === undefined ? b.lt : b.lt === undefined ? a.lt : Math.min(a.lt, b.lt);
  const minValues = Math.max(a.minValues ?? 0, b.minValues ?? 0) || undefined;
  const out: Requirement = { key: a.key, complement: false, values: new Set(), allowAbsent: a.allowAbsent && b.allowAbsent, gt, lt, minValues };
  if (a.complement && b.complement) {
    out.complement = true;
    out.values = new Set([...a.values, ...b.values]);
    return out;
  }
  const [set, other] = a.complement ? [b, a] : [a, b];
  for (const v of set.values) if (allows({ ...other, allowAbsent: false }, v) && inBounds(out, v)) out.values.add(v);
  return out;
}

/** Whether some node could satisfy it (a value is left, or the label may be absent). */
export function satisfiable(r: Requirement): boolean {
  if (r.allowAbsent) return true;
  if (!r.complement) return r.values.size > 0;
  return r.gt === undefined || r.lt === undefined || r.lt - r.gt > 1;
}

export function fromNodeSelector(reqs: readonly (NodeSelectorRequirement | NodeSelectorRequirementWithMinValues)[] | undefined): Requirements {
  const out: Requirements = new Map();
  for (const r of reqs ?? []) add(out, requirement(r));
  return out;
}

export function fromLabels(labels: Record<string, string> | undefined): Requirements {
  const out: Requirements = new Map();
  for (const [key, v] of Object.entries(labels ?? {})) add(out, requirement({ key, operator: 'In', values: [v] }));
  return out;
}

/** Adds (intersects) one requirement into a set, in place. */
export function add(into: Requirements, r: Requirement): void {
  const cur = into.get(r.key);
  into.set(r.key, cur ? intersect(cur, r) : r);
}

/** The intersection of two sets (a new map). */
export function merge(a: Requirements, b: Requirements): Requirements {
  const out: Requirements = new Map(a);
  for (const r of b.values()) add(out, r);
  return out;
}

/**
 * Why `pod` cannot join `claim` (undefined when it can): a shared key must leave a value, and a key only the pod
 * requires must be one the cloud provider knows or allow the label to be absent.
 */
export function incompatibility(claim: Requirements, pod: Requirements): string | undefined {
  for (const r of pod.values()) {
    const c = claim.get(r.key);
    if (c) {
      if (!satisfiable(intersect(c, r))) return `key ${r.key}, ${describe(r)} not in ${describe(c)}`;
    } else if (!wellKnownKeys.has(r.key) && !r.allowAbsent) {
      return `label "${r.key}" does not have known values`;
    }
  }
  return undefined;
}

export function describe(r: Requirement): string {
  const vals = [...r.values].sort().join(', ');
  if (r.gt !== undefined || r.lt !== undefined) return `${r.key} ${r.gt !== undefined ? `>${r.gt}` : ''}${r.lt !== undefined ? ` <${r.lt}` : ''}`.trim();
  if (r.complement) return r.values.size ? `${r.key} NotIn [${vals}]` : `${r.key} Exists`;
  return r.values.size ? `${r.key} In [${vals}]` : `${r.key} DoesNotExist`;
}

export function describeAll(reqs: Requirements): string {
  return [...reqs.values()].map(describe).join(', ');
}

/** Whether a node with these labels satisfies every requirement. */
export function matchesLabels(reqs: Requirements, labels: Record<string, string>): boolean {
  for (const r of reqs.values()) if (!allows(r, getOwn(labels, r.key) as string | undefined)) return false;
  return true;
}

/**
 * The alternatives a pod accepts: its nodeSelector with each required node-affinity term (terms are ORed), or the
 * nodeSelector alone when it has no terms.
 */
export function podRequirements(pod: Pod): Requirements[] {
  const base = fromLabels(pod.spec?.nodeSelector);
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  if (!terms?.length) return [base];
  return terms.slice(0, 32).map((t) => merge(base, fromNodeSelector(t.matchExpressions)));
}

/** The labels a node made from these requirements gets: every key pinned to a single value. */
export function singleValueLabels(reqs: Requirements): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of reqs.values()) if (!r.complement && r.values.size === 1) setOwn(out, r.key, [...r.values][0]!);
  return out;
}
