// The kubelet's side of in-place resize: a changed spec.containers[*].resources is admitted when it fits the
// node's allocatable next to the other pods' requests (then actuated for a moment: PodResizeInProgress), stays
// pending Deferred when it does not fit now, or Infeasible when it could never fit.
import type { Node, Pod, ResourceRequirements } from '../generated/k8s/core/v1.js';
import { amounts, podRequests } from '../machinery/resources.js';
import { jsonEqual } from '../util/json-tree.js';
import type { Client } from '../client/client.js';
import type { PodRun } from './pod-runtime.js';
import { containerSpecs } from './pod-runtime.js';

/** How often a deferred resize is retried. */
export const deferredRetryMs = 5000;

/** Whether two containers' resources are alike (limits and requests, key order and absent maps aside). */
export const sameResources = (a: ResourceRequirements | undefined, b: ResourceRequirements | undefined) =>
  a === b || (sameMap(a?.limits, b?.limits) && sameMap(a?.requests, b?.requests));
const sameMap = (x: object | undefined, y: object | undefined) => jsonEqual(x ?? {}, y ?? {}, 4);

const terminal = (p: Pod) => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Integer amounts as the kubelet reports them: cpu in millicores, memory in bytes. */
const scaled = (r: string, v: number) => Math.round(r === 'cpu' ? v * 1000 : v);

/**
 * Re-evaluates a pending resize; returns the clock delay after which to look again (undefined: nothing pending).
 * Mutates `run` (allocated resources, pending reason, in-progress window).
 */
export function evaluateResize(client: Client, pod: Pod, run: PodRun, now: number, actuateMs: number): number | undefined {
  if (run.resizeInProgressUntilMs !== undefined && run.resizeInProgressUntilMs <= now) {
    for (const [k, v] of run.allocated) run.actuated.set(k, structuredClone(v));
    run.resizeInProgressUntilMs = undefined;
  }
  const changed = containerSpecs(pod).filter(({ spec, kind }) => kind !== 'init' && !sameResources(spec.resources, run.allocated.get(spec.name)));
  if (changed.length === 0) {
    run.resizePending = undefined;
    return run.resizeInProgressUntilMs !== undefined ? run.resizeInProgressUntilMs - now : undefined;
  }
  const node = client.get('v1/nodes', '', run.nodeName);
  const allocatable = amounts(node?.status?.allocatable as Record<string, unknown> | undefined);
  const wanted = podRequests(pod);
  const used: Record<string, number> = {};
  for (const other of client.list('v1/pods')) {
    if (other.spec?.nodeName !== run.nodeName || other.metadata?.uid === run.uid || terminal(other)) continue;
    for (const [k, v] of Object.entries(podRequests(other))) used[k] = (used[k] ?? 0) + v;
  }
  for (const r of ['memory', 'cpu']) {
    const cap = allocatable[r];
    if (cap !== undefined && (wanted[r] ?? 0) > cap) {
      run.resizePending = { reason: 'Infeasible', message: `Node didn't have enough capacity: ${r}, requested: ${scaled(r, wanted[r] ?? 0)}, capacity: ${scaled(r, cap)}` };
      return undefined;
    }
  }
  for (const r of ['cpu', 'memory']) {
    const cap = allocatable[r];
    if (cap !== undefined && (wanted[r] ?? 0) + (used[r] ?? 0) > cap) {
      run.resizePending = {
        reason: 'Deferred',
        message: `Node didn't have enough resource: ${r}, requested: ${scaled(r, wanted[r] ?? 0)}, used: ${scaled(r, used[r] ?? 0)}, capacity: ${scaled(r, cap)}`,
      };
      return deferredRetryMs;
    }
  }
  for (const { spec } of changed) {
    const before = run.allocated.get(spec.name);
    run.allocated.set(spec.name, structuredClone(spec.resources ?? {}));
    // A resource whose resize policy is RestartContainer takes effect by restarting the container.
    const restart = (spec.resizePolicy ?? []).some((p) => p.restartPolicy === 'RestartContainer' && differs(before, spec.resources, p.resourceName));
    const c = run.containers.find((x) => x.name === spec.name);
    if (restart && c?.stage === 'running') {
      c.stopAtMs = now;
      c.stopExitCode = 0;
      c.killReason = 'resize';
    }
  }
  run.resizePending = undefined;
  run.resizeInProgressUntilMs = now + actuateMs;
  return actuateMs;
}

function differs(a: ResourceRequirements | undefined, b: ResourceRequirements | undefined, resource: string): boolean {
  const get = (r: ResourceRequirements | undefined, kind: 'requests' | 'limits') => (r?.[kind] as Record<string, unknown> | undefined)?.[resource];
  return get(a, 'requests') !== get(b, 'requests') || get(a, 'limits') !== get(b, 'limits');
}
