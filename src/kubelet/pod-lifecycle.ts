// The simulated kubelet's pod side: every pod bound to a node with a running agent goes through its lifecycle
// stages (sandbox, init containers, pull, create, start, probes, exit, restart, graceful termination).
// Level-triggered: one work queue of pod keys; each reconcile advances the pod's runtime record to the current
// clock time, writes the resulting status and asks to be called again when the next stage is due.
import type { Pod } from '../generated/k8s/core/v1.js';
import { setLogProvider, storeLogProvider } from './log-provider.js';
import type { ServerStateHolder } from '../util/server-slot.js';
import { EventRecorder } from '../client/event-recorder.js';
import { WorkQueue } from '../util/work-queue.js';
import type { KObject } from '../machinery/types.js';
import { jsonEqual } from '../util/json-tree.js';
import { LogStore } from './log-store.js';
import { PodAdvancer } from './pod-advance.js';
import { evaluateResize } from './pod-resize.js';
import { addEphemeralRuns, allRuns, type ContainerRun, type PodRun } from './pod-runtime.js';
import { adoptedStatusCurrent, adoptPod, markPresent } from './pod-adopt.js';
import { addRunningImages, steadyAtRestart } from './pod-dormant.js';
import { NodeFiling } from './node-filing.js';
import { activeDeadline, preStopMs, sigtermExitCode } from './pod-termination.js';
import { buildStatus, podPhase } from './pod-status.js';
import type { KubeletContext, NodeAgentView, NodeDirectory } from './types.js';
import { nodeClient } from './node-client.js';
import { pullImage } from './registry/pull.js';
import { setContainerLogSink } from './container-log-append.js';
import { setContainerExitSink } from './container-exit.js';
import { containerConfigError, mountFailures } from './pod-references.js';
import { runImageEffects } from './image-effects.js';
import { recheckReferences, ReferenceWaits, referenceLookup, waitsOnReferences } from './reference-waits.js';
import { keyOf } from '../machinery/object-key.js';
import { CommandResults, commandLine } from './command-runner.js';
import { chooseCapacityGpus, usesCapacityGpus } from './dra/capacity-gpus.js';
import { recordedIds } from '../machinery/gpu-devices.js';

/** The event fieldPath of a container: `spec.containers{web}`, `spec.initContainers{setup}`, `spec.ephemeralContainers{debugger-x}`. */
const fieldPathOf = (c: { kind: string; name: string }) =>
  `spec.${c.kind === 'main' ? 'containers' : c.kind === 'ephemeral' ? 'ephemeralContainers' : 'initContainers'}{${c.name}}`;

/** Deeper than any pod status the kubelet builds (a deeper one compares unequal and is written, which is safe). */
const statusDepth = 32;
const isTerminal = (phase: string | undefined) => phase === 'Succeeded' || phase === 'Failed';
/**
 * Start-up steps that follow each other this closely are not written one by one: the next step's write carries them,
 * as upstream's kubelet does (one sync runs sandbox, pulls and starts, and its status manager posts the latest
 * status), so a pod goes from its first status (ContainerCreating) to Running in one more write. A longer step (a
 * pull or start delay from an annotation or the cluster's timings, a probe, ready-seconds) is written as it happens.
 */
const coalesceMs = 250;
/** Only during the pod's first second on the node: later changes (exits, restarts, probes) are written as they happen. */
const coalesceUntilMs = 1000;

export class PodLifecycle {
  private readonly queue: WorkQueue;
  private readonly runs = new Map<string, PodRun>();
  private readonly uidOfKey = new Map<string, string>();
  /** Pod keys by the node they are bound to. */
  private readonly filed = new NodeFiling();
  private readonly recorders = new Map<string, EventRecorder>();
  /** The resourceVersion of the kubelet's last status write of each pod it runs (by uid). */
  private readonly writtenRv = new Map<string, string>();
  private readonly pulled = new Map<string, Set<string>>();
  /**
   * Pods found steady at the restart (pod-dormant.ts), by uid: the stored pod as found. Their runtime record, plans
   * and logs are built from it on first need (wake): a change to the pod, a log read or append.
   */
  private readonly dormant = new Map<string, Pod>();
  private readonly stops: Array<() => void> = [];
  /** Pods held back for a Secret or ConfigMap, woken when one is written in their namespace. */
  private readonly refs: ReferenceWaits;
  readonly logs: LogStore;
  /** What containers' commands do, run in the simulated runtime's shell (command-runner.ts). */
  private readonly scripts: CommandResults;

  /** The server this kubelet simulation belongs to: logs are looked up by it. */
  private readonly server: ServerStateHolder;

  constructor(private readonly ctx: KubeletContext, private readonly nodes: NodeDirectory) {
    this.server = ctx.client;
    this.logs = new LogStore(ctx.clock);
    this.queue = new WorkQueue('pod-lifecycle', (key) => this.reconcile(key), ctx.clock, ctx.log);
    this.scripts = new CommandResults(ctx.client, (pod) => this.queue.add(keyOf(pod)), (err) => ctx.log.warn({ err }, 'a container command failed to run'));
    this.stops.push(ctx.client.watch('v1/pods', (c) => {
      // The echo of the kubelet's own status write tells it nothing new (its next step is queued already).
      const uid = c.object.metadata.uid;
      if (c.type === 'MODIFIED' && uid !== undefined && this.writtenRv.get(uid) === c.object.metadata.resourceVersion) return;
      const key = keyOf(c.object);
      // A pod bound to no node that this kubelet never filed (a new pod before the scheduler): nothing to do yet.
      if (!(c.object as Pod).spec?.nodeName && !this.uidOfKey.has(key)) return;
      this.queue.add(key);
    }));
    this.refs = new ReferenceWaits(ctx.client, (key) => {
      const run = this.runs.get(this.uidOfKey.get(key) ?? '');
      if (run) recheckReferences(run, ctx.clock.nowMs());
      this.queue.add(key);
    });
    this.stops.push(() => this.refs.stop());
    this.stops.push(nodes.onAgentStarted((node) => {
      for (const key of this.filed.keysOn(node)) this.queue.add(key);
    }));
    // Every pod there is gets a first look once the agents have started (they start right after this constructor).
    const first = setImmediate(() => this.firstLook());
    this.stops.push(() => clearImmediate(first));
    setLogProvider(this.server, storeLogProvider(this.logs, (uid) => void this.wake(uid), () => this.ctx.clock.nowMs()));
    setContainerExitSink(this.server, (uid, container, code) => this.exited(uid, container, code));
    setContainerLogSink(this.server, (uid, container, line) => {
      this.wake(uid);
      return this.logs.append(uid, container, line);
    });
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.queue.stop();
    setLogProvider(this.server, undefined);
    setContainerLogSink(this.server, undefined);
    setContainerExitSink(this.server, undefined);
  }

  /** A running container's process ended now (a session's shell that was the process exited): it terminates. */
  private exited(uid: string, container: string, code: number): boolean {
    const run = this.runs.get(uid) ?? this.wake(uid);
    const c = run ? allRuns(run).find((x) => x.name === container && x.stage === 'running') : undefined;
    if (!run || !c) return false;
    const now = this.ctx.clock.nowMs();
    c.stopAtMs = Math.max(now, c.startedAtMs ?? now);
    c.stopExitCode = code;
    this.queue.add(`${run.namespace}/${run.name}`);
    return true;
  }

  /**
   * The first look at the pods found at start: a steady one is left dormant here at once (what its reconcile would
   * do, without a trip through the work queue for each of 100,000 pods); the others are queued for reconcile.
   */
  private firstLook(): void {
    for (const p of this.ctx.client.list('v1/pods')) {
      const key = keyOf(p);
      const uid = p.metadata?.uid ?? '';
      const nodeName = p.spec?.nodeName;
      if (nodeName && !this.uidOfKey.has(key) && !this.runs.has(uid) && !this.dormant.has(uid) && this.sleep(p, uid, nodeName)) {
        this.uidOfKey.set(key, uid);
        continue;
      }
      this.queue.add(key);
    }
  }

  private recorder(node: string): EventRecorder {
    let r = this.recorders.get(node);
    if (!r) this.recorders.set(node, (r = new EventRecorder(nodeClient(this.ctx.client, node), { component: 'kubelet', host: node })));
    return r;
  }

  private forget(key: string, uid: string | undefined): void {
    this.uidOfKey.delete(key);
    this.refs.track(key, false);
    this.filed.unfile(key);
    if (!uid) return;
    const asleep = this.dormant.get(uid);
    if (asleep) {
      this.dormant.delete(uid);
      this.nodes.agent(asleep.spec?.nodeName ?? '')?.releasePodIP(uid);
    }
    const run = this.runs.get(uid);
    this.runs.delete(uid);
    this.writtenRv.delete(uid);
    this.logs.drop(uid);
    this.scripts.forget(uid);
    if (run) this.nodes.agent(run.nodeName)?.releasePodIP(uid);
  }

  private async reconcile(key: string): Promise<number | void> {
    const [namespace, name] = key.split('/');
    const pod = this.ctx.client.get('v1/pods', namespace, name);
    const known = this.uidOfKey.get(key);
    if (!pod || (known && pod.metadata?.uid !== known)) this.forget(key, known);
    if (!pod) return;
    const nodeName = pod.spec?.nodeName;
    if (!nodeName) return;
    const uid = pod.metadata?.uid ?? '';
    this.uidOfKey.set(key, uid);
    let run = this.runs.get(uid) ?? this.wake(uid);
    if (!run && this.filed.nodeOf(key) === undefined && this.sleep(pod, uid, nodeName)) return;
    this.filed.file(key, nodeName);
    const agent = this.nodes.agent(nodeName);
    if (!agent) return;
    const now = this.ctx.clock.nowMs();
    const fresh = !run;
    if (!run) {
      const adopted = adoptPod(pod, nodeName, now);
      run = adopted.run;
      this.runs.set(uid, run);
      markPresent(this.pulled, nodeName, adopted.images);
      if (run.podIP) agent.allocatePodIP(uid);
      this.holdGpus(pod, run);
    }
    addEphemeralRuns(pod, run, now);
    if (pod.metadata?.deletionTimestamp) return this.terminate(pod, run, agent, now);
    if (run.finished) return;
    const advancer = this.advancer(pod, run, agent, now);
    advancer.resume();
    const deadline = activeDeadline(pod, run, now);
    if (deadline === 'exceeded') this.recorder(run.nodeName).event(pod, 'Normal', 'DeadlineExceeded', 'Pod was active on the node longer than the specified deadline');
    const resizeAfter = evaluateResize(this.ctx.client, pod, run, now, this.ctx.timings.startMs);
    let next = Math.min(advancer.advance(), typeof deadline === 'number' ? deadline : Infinity, resizeAfter === undefined ? Infinity : now + resizeAfter);
    if (isTerminal(podPhase(pod, run, now))) {
      this.stopAll(run, now, pod, agent);
      run.finished = true;
      agent.releasePodIP(uid);
      next = Infinity;
    }
    // A pod just adopted whose stored status is already current is written nothing, without building it.
    if (!fresh || !adoptedStatusCurrent(pod, run, now, agent.hostIP)) await this.writeStatus(pod, run, agent, now, next);
    this.refs.track(key, !run.finished && waitsOnReferences(run));
    return next === Infinity ? undefined : Math.max(1, next - now);
  }

  /**
   * A pod seen for the first time on a node whose kubelet runs, steady as stored (see pod-dormant.ts): its adoption
   * waits. What others need at once is recorded now: its IP held in the node's pool, its images present on the node.
   */
  private sleep(pod: Pod, uid: string, nodeName: string): boolean {
    const agent = this.nodes.agent(nodeName);
    if (!agent || !uid || !steadyAtRestart(pod, this.ctx.clock.nowMs(), agent.hostIP)) return false;
    this.dormant.set(uid, pod);
    if (agent.holdPodIP) agent.holdPodIP(uid);
    else agent.allocatePodIP(uid);
    let images = this.pulled.get(nodeName);
    if (!images) this.pulled.set(nodeName, (images = new Set()));
    addRunningImages(pod, images);
    return true;
  }

  /**
   * Builds the runtime record of a dormant pod from the pod as stored at the restart, as adoption then would have
   * (plans and logs included), and files it under its node. undefined when the pod is not dormant.
   */
  private wake(uid: string): PodRun | undefined {
    const pod = this.dormant.get(uid);
    if (!pod) return undefined;
    this.dormant.delete(uid);
    const nodeName = pod.spec?.nodeName ?? '';
    const now = this.ctx.clock.nowMs();
    const { run } = adoptPod(pod, nodeName, now);
    this.holdGpus(pod, run);
    this.runs.set(uid, run);
    this.filed.file(keyOf(pod), nodeName);
    this.advancer(pod, run, this.nodes.agent(nodeName), now).resume();
    return run;
  }

  /** The GPUs a pod holds through its node's capacity: as its status recorded them, else chosen now. */
  private holdGpus(pod: Pod, run: PodRun): void {
    if (run.gpus || run.finished || !usesCapacityGpus(pod)) return;
    const others = [...this.runs.values()].filter((r) => r !== run && r.nodeName === run.nodeName && !r.finished).flatMap((r) => [...recordedIds(r.gpus)]);
    run.gpus = chooseCapacityGpus(this.ctx.client, pod, run.nodeName, others);
  }

  /**
   * Whether a status change may wait for the step due at `next` (see coalesceMs): the kubelet has posted the pod's
   * first status already, the pod is starting up and the next step is close.
   */
  private coalesces(pod: Pod, run: PodRun, now: number, next: number): boolean {
    if (next === Infinity || run.terminating || run.finished || !pod.status?.startTime) return false;
    return next - now <= coalesceMs && next <= run.firstSeenMs + coalesceUntilMs;
  }

  /** `agent` undefined: only to resume a record (no step that hands out an IP). */
  private advancer(pod: Pod, run: PodRun, agent: NodeAgentView | undefined, now: number): PodAdvancer {
    const obj = pod;
    const rec = this.recorder(run.nodeName);
    let images = this.pulled.get(run.nodeName);
    if (!images) this.pulled.set(run.nodeName, (images = new Set()));
    const cache = images;
    const lookup = referenceLookup(this.ctx.client, run.namespace);
    return new PodAdvancer(run, {
      mountFailures: () => mountFailures(pod, lookup),
      configError: (spec) => containerConfigError(pod, spec, lookup),
      started: (spec) => runImageEffects(this.ctx.client, pod, spec, (msg, err) => this.ctx.log.debug({ err }, msg)),
      // The command runs as the container starts: in a sandbox that has its IP, though the status has not said so yet.
      script: (spec, at) => this.scripts.take(run.podIP && !pod.status?.podIP ? { ...pod, status: { ...pod.status, podIP: run.podIP, podIPs: [{ ip: run.podIP }] } } : pod, spec, commandLine(spec), at),
      now, pod, timings: this.ctx.timings, logs: this.logs,
      event: (type, reason, message, c?: ContainerRun) => rec.event(obj, type, reason, message, c ? fieldPathOf(c) : undefined),
      imagePresent: (image) => cache.has(image),
      markPulled: (image) => void cache.add(image),
      pull: (image, container) => pullImage(this.ctx.registry, obj, image, container),
      allocateIP: () => {
        if (!agent) throw new Error(`no kubelet runs on node ${run.nodeName}`);
        return pod.spec?.hostNetwork ? agent.hostIP : agent.allocatePodIP(run.uid);
      },
    });
  }

  /** Containers still running when the pod reaches a terminal phase (sidecars) are stopped with it. */
  private stopAll(run: PodRun, now: number, pod: Pod, agent: NodeAgentView): void {
    const running = allRuns(run).filter((c) => c.stage === 'running');
    if (!running.length) return;
    run.terminating ??= { startMs: now, stopAtMs: new Map(), graceEndMs: now };
    for (const c of running) {
      c.stopAtMs = now;
      c.stopExitCode = 0;
    }
    this.advancer(pod, run, agent, now).advance();
  }

  /** Posts the pod's status when it changed, unless (with `next`, the next step's due time) that step is to carry it. */
  private async writeStatus(pod: Pod, run: PodRun, agent: NodeAgentView, now: number, next?: number): Promise<void> {
    if (next !== undefined && this.coalesces(pod, run, now, next)) return;
    const status = buildStatus(pod, run, now, agent.hostIP);
    if (jsonEqual(status, pod.status, statusDepth)) return;
    const def = this.ctx.client.resource('v1/pods')!;
    // Written at once unless an admission webhook is called: the change it makes is then known as this kubelet's own.
    const write = nodeClient(this.ctx.client, run.nodeName).updateNowOrWait(def, run.namespace, run.name, (cur) => {
      if (cur.metadata.uid !== run.uid) throw new Error('pod was replaced');
      return { ...cur, status: status };
    }, { subresource: 'status', pure: true, audit: { verb: 'patch', subresource: 'status' } });
    const written = write instanceof Promise ? await write : write;
    if (this.runs.get(run.uid) === run && written.metadata.resourceVersion) this.writtenRv.set(run.uid, written.metadata.resourceVersion);
  }

  private async terminate(pod: Pod, run: PodRun, agent: NodeAgentView, now: number): Promise<number | void> {
    const everStarted = run.containers.some((c) => c.containerID !== undefined);
    const ts = Date.parse(pod.metadata?.deletionTimestamp ?? '');
    const graceEnd = pod.metadata?.deletionGracePeriodSeconds === 0 ? now : Math.max(now, Number.isNaN(ts) ? now : ts);
    if (!isTerminal(pod.status?.phase) && everStarted) {
      const rec = this.recorder(run.nodeName);
      if (!run.terminating) {
        // The preStop hooks' commands run first: the pod is looked at again once their results are in.
        const hooks = new Map(allRuns(run).filter((c) => c.stage === 'running').map((c) => [c.name, preStopMs(pod, c.name, (spec, argv) => this.scripts.take(pod, spec, argv, ts, 'preStop'))]));
        if ([...hooks.values()].includes('pending')) return;
        run.terminating = { startMs: now, stopAtMs: new Map(), graceEndMs: graceEnd };
        for (const c of allRuns(run)) {
          if (c.stage !== 'running') {
            c.dueMs = undefined;
            continue;
          }
          const want = now + (hooks.get(c.name) as number);
          c.stopAtMs = Math.min(want, graceEnd);
          c.stopExitCode = want > graceEnd ? 137 : sigtermExitCode(pod, c.name, c.kind);
          rec.event(pod, 'Normal', 'Killing', `Stopping container ${c.name}`, fieldPathOf(c));
        }
      } else if (graceEnd < run.terminating.graceEndMs) {
        run.terminating.graceEndMs = graceEnd;
        for (const c of allRuns(run)) {
          if (c.stage === 'running' && (c.stopAtMs ?? Infinity) > graceEnd) {
            c.stopAtMs = graceEnd;
            c.stopExitCode = 137;
          }
        }
      }
      const next = this.advancer(pod, run, agent, now).advance();
      if (allRuns(run).some((c) => c.stage === 'running')) {
        await this.writeStatus(pod, run, agent, now);
        return next === Infinity ? undefined : Math.max(1, next - now);
      }
      run.finished = true;
      await this.writeStatus(pod, run, agent, now);
    }
    agent.releasePodIP(run.uid);
    const def = this.ctx.client.resource('v1/pods')!;
    try {
      await nodeClient(this.ctx.client, run.nodeName).delete(def, run.namespace, run.name, { gracePeriodSeconds: 0, preconditions: { uid: run.uid } });
    } catch (err) {
      this.ctx.log.debug({ err, pod: `${run.namespace}/${run.name}` }, 'pod already gone');
    }
  }
}
