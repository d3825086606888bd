// Lazy adoption after a restart. Most pods a kubelet finds after a restart are steady: Running, every container
// running and ready, nothing timed ahead (no exit, probe failure or deadline to come). For such a pod, adoption only
// builds records (the runtime record, container plans, logs) and writes nothing. This file decides, from the stored
// pod alone, whether a pod is in that state. The lifecycle then keeps the stored pod and builds its records on
// first need: any change to the pod, a log read or append. Built later from the same stored pod, the records are
// the ones adoption at the restart would have built.
import type { Container, ContainerStatus, Pod } from '../generated/k8s/core/v1.js';
import { simAnnotations } from './annotations.js';
import { scripted } from './command-runner.js';
import { normalizeImage } from './container-ids.js';
import { iso } from './pod-advance.js';
import { sameResources } from './pod-resize.js';
import { sameQuantities } from './pod-adopt.js';
import { probeRefused } from './probe-ports.js';

/** The annotations that put a timer on a running container (an exit, a readiness or liveness failure, an OOM kill). */
const timerAnnotations = [
  simAnnotations.runSeconds, simAnnotations.crashAfterSeconds, simAnnotations.neverReady, simAnnotations.memoryUsage,
  simAnnotations.livenessFailAfterSeconds, simAnnotations.readySeconds,
];

/** The kubelet's own conditions, in the order buildStatus writes them, then PodScheduled. */
const steadyConditions = ['PodReadyToStartContainers', 'Initialized', 'Ready', 'ContainersReady'] as const;

const ms = (t: string | undefined) => {
  const v = t ? Date.parse(t) : NaN;
  return Number.isNaN(v) ? undefined : v;
};

/** Canonical timestamps seen (the text iso() writes for the instant it names), bounded; start times repeat a lot. */
const canonicalSeen = new Map<string, number | undefined>();
const canonicalMax = 4096;

/** The instant of a timestamp in the form the kubelet writes (iso()); undefined for anything else. */
function canonicalMs(t: string | undefined): number | undefined {
  if (t === undefined) return undefined;
  const hit = canonicalSeen.get(t);
  if (hit !== undefined || canonicalSeen.has(t)) return hit;
  const v = ms(t);
  const out = v !== undefined && iso(v) === t ? v : undefined;
  if (canonicalSeen.size >= canonicalMax) canonicalSeen.clear();
  canonicalSeen.set(t, out);
  return out;
}

const none = (a: readonly unknown[] | undefined) => a === undefined || a.length === 0;

function timed(pod: Pod): boolean {
  const ann = pod.metadata?.annotations;
  if (!ann) return false;
  for (const k of Object.keys(ann)) {
    if (!k.startsWith('bonsai.dev/')) continue;
    for (const t of timerAnnotations) if (k === t || k.startsWith(`${t}.`)) return true;
  }
  return false;
}

/**
 * Whether adopting this pod, seen for the first time after a restart on a node whose kubelet runs (host IP
 * `hostIP`), would change nothing and time nothing: the status the kubelet would build from the record adopted
 * from it is the stored one (the checks of adoptedStatusCurrent, on the stored fields adoptPod reads), its containers
 * run with no exit, probe failure, deadline or resize to come, and it is not being deleted. Only then can adoption
 * wait. false means only "adopt now, as usual".
 */
export function steadyAtRestart(pod: Pod, now: number, hostIP: string): boolean {
  const st = pod.status as (Pod['status'] & { observedGeneration?: number }) | undefined;
  const spec = pod.spec;
  if (!st || !spec || pod.metadata?.deletionTimestamp) return false;
  if (st.phase !== 'Running' || st.reason !== undefined || st.message !== undefined) return false;
  if (spec.activeDeadlineSeconds !== undefined || (spec.restartPolicy !== undefined && spec.restartPolicy !== 'Always')) return false;
  if (!none(spec.initContainers) || !none(spec.ephemeralContainers) || !none(spec.readinessGates)) return false;
  if (!none(st.initContainerStatuses) || !none(st.ephemeralContainerStatuses)) return false;
  if (timed(pod) || spec.containers.some((c) => probeRefused(c, c.readinessProbe) || probeRefused(c, c.livenessProbe))) return false;
  const gen = pod.metadata?.generation;
  if (st.observedGeneration !== gen) return false;
  if (st.hostIP !== hostIP || st.hostIPs?.length !== 1 || st.hostIPs[0].ip !== hostIP) return false;
  if (st.podIP === undefined || st.podIPs?.length !== 1 || st.podIPs[0].ip !== st.podIP) return false;
  if (canonicalMs(st.startTime) === undefined) return false;
  const conds = st.conditions ?? [];
  if (conds.length < steadyConditions.length + 1) return false;
  for (let i = 0; i < steadyConditions.length; i++) {
    const c = conds[i] as (typeof conds)[number] & { observedGeneration?: number };
    if (c.type !== steadyConditions[i] || c.status !== 'True' || c.reason !== undefined || c.message !== undefined || c.lastProbeTime !== null || !c.lastTransitionTime || c.observedGeneration !== gen) return false;
  }
  // The sandbox is up since then (adoptPod takes the first such condition: this one).
  const sandboxAt = conds[0].lastTransitionTime;
  if ((canonicalMs(sandboxAt) ?? ms(sandboxAt) ?? now) > now) return false;
  if (conds[steadyConditions.length].type !== 'PodScheduled' || conds[steadyConditions.length].status !== 'True') return false;
  const containers = spec.containers ?? [];
  const statuses = st.containerStatuses ?? [];
  if (statuses.length !== containers.length) return false;
  for (let i = 1; i < statuses.length; i++) if (!(statuses[i - 1].name < statuses[i].name)) return false;
  for (const want of containers) {
    const s = statuses.find((x) => x.name === want.name);
    if (!s || !steadyContainer(want, s, now)) return false;
  }
  return true;
}

function steadyContainer(want: Container, s: ContainerStatus, now: number): boolean {
  if (scripted(want.command, want.args)) return false;
  if (s.ready !== true || s.started !== true || s.restartCount === undefined || s.containerID === undefined) return false;
  const state = s.state;
  if (!state?.running || state.waiting || state.terminated) return false;
  // adoptPod reads the start (now when unreadable), isReady needs it past, the status writes it back as iso() does.
  const startedAt = canonicalMs(state.running.startedAt);
  if (startedAt === undefined || startedAt > now) return false;
  if (s.image !== normalizeImage(want.image ?? '')) return false;
  const res = want.resources ?? {};
  const hasRes = Object.keys(res.requests ?? {}).length > 0 || Object.keys(res.limits ?? {}).length > 0;
  if (!hasRes) return s.resources === undefined && s.allocatedResources === undefined;
  // Adopted as allocated and actuated: what the status reports; a spec that differs from it is a resize.
  if (!s.resources || !sameQuantities(s.allocatedResources, s.resources.requests)) return false;
  return sameResources(want.resources, s.resources);
}

/** Adds the images a steady pod's containers run to `present` (its node's runtime has them). */
export function addRunningImages(pod: Pod, present: Set<string>): void {
  for (const c of pod.spec?.containers ?? []) if (c.image) present.add(c.image);
}
