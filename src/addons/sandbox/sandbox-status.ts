// A Sandbox's conditions (Suspended, Finished, PodScheduled, Ready) from its pod and service, with upstream's
// reasons and messages.
import type { KObject } from '../../machinery/types.js';
import { isSuspended, ownership, record, type Condition, type Sandbox } from './sandbox-types.js';

type Gen = number | undefined;

const podConditions = (pod: KObject) => (record(pod.status).conditions as Array<{ type?: string; status?: string; reason?: string; message?: string }> | undefined) ?? [];
const phaseOf = (pod: KObject) => String(record(pod.status).phase ?? '');

export function suspendedCondition(sb: Sandbox, pod: KObject | undefined, gen: Gen): Condition {
  const c: Condition = { type: 'Suspended', status: 'False', reason: 'NotSuspended', message: 'Sandbox is not suspended', observedGeneration: gen };
  if (!isSuspended(sb)) return c;
  if (!pod) return { ...c, status: 'True', reason: 'PodTerminated', message: 'Pod has been terminated. Sandbox is suspended' };
  if (ownership(pod, sb) !== 'owned') return { ...c, reason: 'PodNotOwned', message: 'Refused to delete pod because it is not owned by this sandbox' };
  return { ...c, reason: 'PodTerminating', message: 'Pod is terminating. Sandbox is suspending' };
}

export function finishedCondition(sb: Sandbox, pod: KObject | undefined, gen: Gen): Condition | undefined {
  if (!pod || ownership(pod, sb) !== 'owned') return undefined;
  const phase = phaseOf(pod);
  if (phase === 'Succeeded') return { type: 'Finished', status: 'True', reason: 'PodSucceeded', message: 'Pod completed successfully', observedGeneration: gen };
  if (phase === 'Failed') return { type: 'Finished', status: 'True', reason: 'PodFailed', message: 'Pod failed', observedGeneration: gen };
  return undefined;
}

export function scheduledCondition(sb: Sandbox, pod: KObject | undefined, gen: Gen): Condition | undefined {
  if (!pod || ownership(pod, sb) !== 'owned') return undefined;
  const pc = podConditions(pod).find((c) => c.type === 'PodScheduled');
  if (!pc) return { type: 'PodScheduled', status: 'Unknown', reason: 'PodSchedulingUnknown', message: 'Pod has not reported a PodScheduled condition yet', observedGeneration: gen };
  const status = pc.status === 'True' ? 'True' : pc.status === 'False' ? 'False' : 'Unknown';
  return { type: 'PodScheduled', status, reason: pc.reason || (status === 'True' ? 'PodScheduled' : 'PodSchedulingUnknown'), message: pc.message ?? '', observedGeneration: gen };
}

export function readyCondition(sb: Sandbox, err: Error | undefined, svc: KObject | undefined, pod: KObject | undefined, gen: Gen): Condition {
  const c: Condition = { type: 'Ready', status: 'False', reason: 'DependenciesNotReady', message: '', observedGeneration: gen };
  if (err) {
    if (err.message.startsWith('multiple Pods')) return { ...c, reason: 'MultiplePods', message: err.message };
    return { ...c, reason: 'ReconcilerError', message: `Error seen: ${err.message}` };
  }
  if (isSuspended(sb)) return { ...c, reason: 'SandboxSuspended', message: pod ? 'Sandbox is suspending' : 'Sandbox is suspended' };
  if (pod) {
    const phase = phaseOf(pod);
    if (phase === 'Succeeded') return { ...c, reason: 'PodSucceeded', message: 'Pod completed successfully' };
    if (phase === 'Failed') return { ...c, reason: 'PodFailed', message: 'Pod failed' };
  }
  let message = 'Pod does not exist';
  let podReady = false;
  if (pod) {
    const phase = phaseOf(pod);
    message = `Pod exists with phase: ${phase}`;
    if (phase === 'Running') {
      message = 'Pod is Running but not Ready';
      if (podConditions(pod).find((x) => x.type === 'Ready')?.status === 'True') {
        const ips = record(pod.status).podIPs;
        if (Array.isArray(ips) && ips.length) {
          message = 'Pod is Ready';
          podReady = true;
        } else message = 'Pod is Ready but has no podIPs yet';
      }
    }
  }
  const svcRequired = sb.spec?.service ?? !!svc;
  let svcReady = true;
  if (svcRequired) {
    svcReady = !!svc;
    message += svc ? '; Service Exists' : '; Service does not exist';
  }
  if (podReady && svcReady) return { ...c, status: 'True', reason: 'DependenciesReady', message };
  return { ...c, message };
}
