// Pods: READY, STATUS (the aggregate reason kubectl shows), RESTARTS and the wide columns.
import type { KObject } from '../../machinery/types.js';
import type { Container, ContainerStatus, Pod, PodCondition } from '../../generated/k8s/core/v1.js';
import { POD_IP, POD_NODE_NAME, POD_NOMINATED_NODE, POD_READINESS_GATES } from './descriptions.js';
import {
  ageCol,
  ageOf,
  col,
  int,
  isDeleting,
  list,
  nameCol,
  nameOf,
  parseTime,
  rec,
  since,
  str,
  type TablePrinter,
} from './helpers.js';

/** The latest finishedAt of a container's previous termination, tracked across containers. */
class LastRestart {
  ms: number | undefined;
  ts: string | undefined;
  observe(status: ContainerStatus): void {
    const finished = rec(rec(status.lastState).terminated).finishedAt;
    const ms = parseTime(finished);
    if (ms !== undefined && (this.ms === undefined || this.ms < ms)) {
      this.ms = ms;
      this.ts = str(finished);
    }
  }
}

function conditionTrue(conditions: PodCondition[], type: string): boolean {
  return conditions.some((c) => rec(c).type === type && rec(c).status === 'True');
}

/** The status of the PodInitialized condition (the first one found) is True. */
function initializedConditionTrue(conditions: PodCondition[]): boolean {
  for (const c of conditions) {
    if (rec(c).type !== 'Initialized') continue;
    return rec(c).status === 'True';
  }
  return false;
}

function terminatedReason(t: Record<string, unknown>, prefix: string): string {
  const reason = str(t.reason);
  if (reason !== '') return prefix + reason;
  const signal = int(t.signal);
  if (signal !== 0) return `${prefix}Signal:${signal}`;
  return `${prefix}ExitCode:${int(t.exitCode)}`;
}

/** Cells for one pod, always including the wide ones (the server renders with wide=true). */
export function podCells(obj: KObject, now: Date): unknown[] {
  const pod = obj as Pod;
  const spec = rec(pod.spec);
  const status = rec(pod.status);
  const conditions = list<PodCondition>(status.conditions);
  const containers = list<Container>(spec.containers);
  const initContainers = list<Container>(spec.initContainers);

  let restarts = 0;
  let restartableInitRestarts = 0;
  let total = containers.length;
  let ready = 0;
  let lastRestart = new LastRestart();
  const lastRestartableInitRestart = new LastRestart();

  const phase = str(status.phase);
  let reason = str(status.reason) !== '' ? str(status.reason) : phase;
  for (const c of conditions) {
    if (rec(c).type === 'PodScheduled' && rec(c).reason === 'SchedulingGated') reason = 'SchedulingGated';
  }

  const restartableInit = new Set<string>();
  for (const c of initContainers) {
    if (rec(c).restartPolicy === 'Always') {
      restartableInit.add(str(rec(c).name));
      total++;
    }
  }

  let initializing = false;
  const initStatuses = list<ContainerStatus>(status.initContainerStatuses);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = rec(initStatuses[i]) as ContainerStatus;
    const state = rec(cs.state);
    const terminated = state.terminated === undefined || state.terminated === null ? undefined : rec(state.terminated);
    const waiting = state.waiting === undefined || state.waiting === null ? undefined : rec(state.waiting);
    const restartable = restartableInit.has(str(cs.name));
    restarts += int(cs.restartCount);
    lastRestart.observe(cs);
    if (restartable) {
      restartableInitRestarts += int(cs.restartCount);
      lastRestartableInitRestart.observe(cs);
    }
    if (terminated && int(terminated.exitCode) === 0) continue;
    if (restartable && cs.started === true) {
      if (cs.ready === true) ready++;
      continue;
    }
    if (terminated) {
      reason = terminatedReason(terminated, 'Init:');
    } else if (waiting && str(waiting.reason) !== '' && waiting.reason !== 'PodInitializing') {
      reason = `Init:${str(waiting.reason)}`;
    } else {
      reason = `Init:${i}/${initContainers.length}`;
    }
    initializing = true;
    break;
  }

  if (!initializing || initializedConditionTrue(conditions)) {
    restarts = restartableInitRestarts;
    lastRestart = lastRestartableInitRestart;
    let hasRunning = false;
    let errorReason = '';
    const statuses = list<ContainerStatus>(status.containerStatuses);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = rec(statuses[i]) as ContainerStatus;
      const state = rec(cs.state);
      restarts += int(cs.restartCount);
      lastRestart.observe(cs);
      const waiting = state.waiting === undefined || state.waiting === null ? undefined : rec(state.waiting);
      const terminated = state.terminated === undefined || state.terminated === null ? undefined : rec(state.terminated);
      const running = state.running !== undefined && state.running !== null;
      if (waiting && str(waiting.reason) !== '') {
        reason = str(waiting.reason);
      } else if (terminated) {
        reason = terminatedReason(terminated, '');
        if (int(terminated.exitCode) !== 0) errorReason = reason;
      } else if (cs.ready === true && running) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod whose last-listed container completed may still have others running.
    if (reason === 'Completed') {
      if (hasRunning && conditionTrue(conditions, 'Ready')) reason = 'Running';
      else if (errorReason !== '') reason = errorReason;
      else if (hasRunning) reason = 'NotReady';
    }
  }

  if (isDeleting(obj) && status.reason === 'NodeLost') {
    reason = 'Unknown';
  } else if (isDeleting(obj) && phase !== 'Failed' && phase !== 'Succeeded') {
    reason = 'Terminating';
  }

  let restartsText = String(restarts);
  if (restarts !== 0 && lastRestart.ts !== undefined) {
    restartsText = `${restarts} (${since(lastRestart.ts, now)} ago)`;
  }

  // status.podIP wins over podIPs[0] (the v1 -> internal conversion rule).
  let podIP = str(status.podIP);
  if (podIP === '') podIP = str(rec(list(status.podIPs)[0]).ip);
  const nodeName = str(spec.nodeName);
  const nominated = str(status.nominatedNodeName);

  let readinessGates = '<none>';
  const gates = list(spec.readinessGates);
  if (gates.length > 0) {
    let trueConditions = 0;
    for (const gate of gates) {
      const found = conditions.find((c) => rec(c).type === rec(gate).conditionType);
      if (found && rec(found).status === 'True') trueConditions++;
    }
    readinessGates = `${trueConditions}/${gates.length}`;
  }

  return [
    nameOf(obj),
    `${ready}/${total}`,
    reason,
    restartsText,
    ageOf(obj, now),
    podIP || '<none>',
    nodeName || '<none>',
    nominated || '<none>',
    readinessGates,
  ];
}

export const podPrinter: TablePrinter = {
  columns: [
    nameCol(),
    col('Ready', 'string', 'The aggregate readiness state of this pod for accepting traffic.'),
    col('Status', 'string', 'The aggregate status of the containers in this pod.'),
    col(
      'Restarts',
      'string',
      'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
    ),
    ageCol(),
    col('IP', 'string', POD_IP, 1),
    col('Node', 'string', POD_NODE_NAME, 1),
    col('Nominated Node', 'string', POD_NOMINATED_NODE, 1),
    col('Readiness Gates', 'string', POD_READINESS_GATES, 1),
  ],
  cells: podCells,
};
