// Rolling update by group, as upstream LWS does it on the leader StatefulSet: the partition walks down from the
// top group while at most maxUnavailable groups are unready, and maxSurge extra groups (ordinals at and above
// `replicas`) are kept while old groups are replaced, then released as the updated groups become ready.
// Pure arithmetic over the state of each group (ready, updated); the controller reads the states.

export interface GroupState {
  ready: boolean;
  updated: boolean;
}

export interface RolloutInput {
  /** spec.replicas of the LeaderWorkerSet. */
  lwsReplicas: number;
  /** spec.rolloutStrategy.rollingUpdateConfiguration.partition. */
  lwsPartition: number;
  maxSurge: number;
  maxUnavailable: number;
  /** The leader StatefulSet as it is (undefined before it exists). */
  sts?: { replicas: number; partition: number; replicasAnnotation: number };
  /** True when the template changed since the leader StatefulSet was last written. */
  templateChanged: boolean;
  /** Each group's state, by index, for the leader StatefulSet's replicas (read only when needed). */
  states: () => GroupState[];
}

export interface RolloutDecision {
  partition: number;
  replicas: number;
}

/** Groups that count against availability: not ready or not yet at the update revision (among the first `lwsReplicas`). */
export function unreadyGroups(states: GroupState[], lwsReplicas: number): number {
  let n = 0;
  for (let i = 0; i < lwsReplicas; i++) if (i >= states.length || !states[i].ready || !states[i].updated) n++;
  return n;
}

/** The leader StatefulSet's replicas during a rollout: surge groups stay while more groups are unready than allowed. */
export function rolloutReplicas(lwsReplicas: number, maxSurge: number, maxUnavailable: number, unready: number): number {
  if (unready <= maxSurge) return lwsReplicas + Math.max(0, unready - maxUnavailable);
  return lwsReplicas + maxSurge;
}

/** How many groups from the top are ready and updated, without a gap. */
export function readyTail(states: GroupState[]): number {
  let n = 0;
  for (let i = states.length - 1; i >= 0 && states[i].ready && states[i].updated; i--) n++;
  return n;
}

/** The next partition: step down past the ready-and-updated top, spending the budget of unavailable groups. */
export function nextPartition(states: GroupState[], stsReplicas: number, step: number, current: number): number {
  const stepped = Math.max(0, stsReplicas - readyTail(states) - step);
  let unavailable = 0;
  for (let i = 0; i < stepped; i++) if (!states[i]?.ready) unavailable++;
  let partition = stepped + unavailable;
  // Groups just below the candidate that are unready or already updated can be included at no cost.
  for (let i = Math.min(partition, stsReplicas - 1); i >= stepped; i--) {
    const s = states[i];
    if (!s || !s.ready || s.updated) partition = i;
    else break;
  }
  return Math.min(partition, current);
}

export function rollout(input: RolloutInput): RolloutDecision {
  const { lwsReplicas, lwsPartition, sts } = input;
  const maxSurge = Math.min(input.maxSurge, lwsReplicas);
  const maxUnavailable = input.maxUnavailable;
  const floor = (d: RolloutDecision): RolloutDecision => ({ partition: Math.max(d.partition, lwsPartition), replicas: d.replicas });
  if (!sts) return floor({ partition: 0, replicas: lwsReplicas });
  const burst = lwsReplicas + maxSurge;
  const want = (unready: number) => rolloutReplicas(lwsReplicas, maxSurge, maxUnavailable, unready);
  if (input.templateChanged) {
    const partition = Math.min(lwsReplicas, sts.replicas);
    if (sts.replicas < lwsReplicas) return floor({ partition, replicas: lwsReplicas });
    return floor({ partition, replicas: want(lwsReplicas) });
  }
  if (sts.partition === 0 && sts.replicas === lwsReplicas) return floor({ partition: 0, replicas: lwsReplicas });
  if (sts.replicas < lwsReplicas) return floor({ partition: sts.partition, replicas: lwsReplicas });
  const states = input.states();
  const unready = unreadyGroups(states, lwsReplicas);
  if (sts.replicasAnnotation !== lwsReplicas) {
    return floor({ partition: Math.min(sts.partition, burst), replicas: want(unready) });
  }
  const step = maxUnavailable + maxSurge - (burst - sts.replicas);
  return floor({ partition: nextPartition(states, sts.replicas, step, sts.partition), replicas: want(unready) });
}
