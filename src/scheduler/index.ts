// The default scheduler: a priority queue with backoff, filter and score plugins, preemption and binding.
// Wiring: the change feed of pods and nodes keeps the cache and the queue; the loop drains the queue in batches.
import type { Node, PersistentVolumeClaim, Pod } from '../generated/k8s/core/v1.js';
import type { StorageClass } from '../generated/k8s/storage/v1.js';
import type { Client } from '../client/client.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { Binder, schedulerName } from './binder.js';
import { draClaimsRef, draLookups, draPlugin, draRefs, draSlicesRef } from './dra-lookups.js';
import type { ResourceClaim } from '../generated/k8s/resource/v1.js';
import { SchedulerCache } from './cache.js';
import type { Lookups } from './framework.js';
import { podKey, termMatches, type PodInfo } from './pod-info.js';
import { defaultFilters, defaultScores } from './plugins/index.js';
import { SchedulingQueue, type QueuedPod } from './queue.js';
import { SchedulingLoop } from './scheduler.js';
import { schedulerIdentity } from '../auth/identities.js';
import { GangTracker, workloadsKey } from './gangs.js';
import { GangCycle } from './gang-cycle.js';
import { decisionLogFor } from './decisions.js';
import { schedulerPaused, watchPause } from './pause.js';
import { defaultSelectorLookup } from './default-selector.js';

export interface SchedulerHandle {
  stop(): void;
}

/** Plugins whose verdict no pod or resource change can alter (only node changes can). */
const nodeOnlyPlugins = new Set(['NodeUnschedulable', 'NodeName', 'TaintToleration', 'NodeAffinity', 'NoNodes', 'VolumeBinding']);

export function responsibleFor(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return (pod.spec?.schedulerName ?? schedulerName) === schedulerName && !pod.spec?.nodeName && !pod.metadata?.deletionTimestamp && phase !== 'Succeeded' && phase !== 'Failed';
}

export function startScheduler(root: Client, clock: Clock, log: Logger): SchedulerHandle {
  // The scheduler writes (bindings, conditions, events) as kube-scheduler does: as system:kube-scheduler.
  const client = root.as(schedulerIdentity.user, schedulerIdentity.component);
  const cache = new SchedulerCache();
  const binder = new Binder(client);
  const defaults = defaultSelectorLookup(client);
  const nominated = new Map<string, Map<string, PodInfo>>();
  const nominatedNode = new Map<string, string>();
  const dra = draLookups(client, () => queue.moveParked((e) => e.rejectors.has(draPlugin)));
  const lookups: Lookups = {
    index: cache.index,
    volumes: {
      claim: (ns, name) => client.get('v1/persistentvolumeclaims', ns, name),
      storageClass: (name) => client.get('storage.k8s.io/v1/storageclasses', '', name),
    },
    dra,
    nsLabels: (ns) => client.get('v1/namespaces', '', ns)?.metadata.labels as Record<string, string> | undefined,
    defaultSelector: (pod) => defaults.selectorFor(pod),
  };
  let loop: SchedulingLoop | undefined;
  const tracker = new GangTracker((ns, name) => client.get(workloadsKey, ns, name));
  const queue = new SchedulingQueue(clock, () => loop?.kick(), (pod, key) => tracker.preEnqueue(pod, key));
  const cycle = new GangCycle({ queue, cache, tracker, clock, log, released: () => queue.moveParked(podRemovedHelps) });
  loop = new SchedulingLoop({
    client, cache, queue, binder, lookups, filters: defaultFilters, scores: defaultScores, log,
    // Asked for every node a pod is filtered against: nothing nominated anywhere (the usual case) answers at once.
    nominatedOn: (node) => (nominated.size === 0 ? undefined : nominated.get(node)?.values()),
    nominate: (pi, node) => setNominated(pi.key, node, pi),
    anyNominated: () => nominated.size > 0,
    gangs: { tracker, cycle },
    // Shared with the API (GET /bonsai/v1/scheduling/...): one log per instance, found by the instance's clock.
    decisions: decisionLogFor(root.clock),
    paused: () => schedulerPaused(client),
  });
  cycle.attach(loop);

  const setNominated = (key: string, node: string | undefined, pi?: PodInfo) => {
    const old = nominatedNode.get(key);
    if (old && old !== node) {
      const m = nominated.get(old);
      m?.delete(key);
      // No empty entries: with nobody nominated anywhere, each node's lookup is one miss.
      if (m && !m.size) nominated.delete(old);
    }
    if (!node || !pi) {
      nominatedNode.delete(key);
      return;
    }
    nominatedNode.set(key, node);
    let m = nominated.get(node);
    if (!m) nominated.set(node, (m = new Map()));
    m.set(key, pi);
  };

  const podAddedHelps = (pi: PodInfo) => (e: QueuedPod) =>
    (e.rejectors.has('PodTopologySpread') && e.pi.ns === pi.ns) ||
    (e.rejectors.has('InterPodAffinity') && e.pi.requiredAffinity.some((t) => termMatches(t, pi, lookups.nsLabels)));
  const podRemovedHelps = (e: QueuedPod) => [...e.rejectors].some((r) => !nodeOnlyPlugins.has(r));

  /** `listed`: the pod's current state as just listed (the start-up pass over 100,000 pods reads each once). */
  const syncPod = (ns: string, name: string, listed?: Pod) => {
    const key = podKey(ns, name);
    const pod = listed ?? (client.get('v1/pods', ns, name));
    // Group membership first: PreEnqueue of this pod (and of its group's pods) counts it.
    const group = tracker.sync(key, pod);
    const r = cache.syncAssigned(key, pod);
    if (r.change === 'added' && r.pi) queue.moveParked(podAddedHelps(r.pi));
    else if (r.change === 'removed') queue.moveParked(podRemovedHelps);
    else if (r.change === 'updated' && r.pi && r.old && r.pi !== r.old && JSON.stringify(r.pi.labels) !== JSON.stringify(r.old.labels)) {
      queue.moveParked(podAddedHelps(r.pi));
      queue.moveParked(podRemovedHelps);
    }
    if (pod && responsibleFor(pod)) {
      // The store is read as it is now: a pod deleted and made again under its name before the delete's event came
      // is a new pod (upstream's informer hands the queue a delete, then an add), not an update of the queued one.
      const queued = queue.get(key);
      if (queued && queued.pi.uid !== pod.metadata?.uid) {
        cycle.forget(key);
        queue.delete(key);
      }
      const e = queue.upsert(pod, key);
      setNominated(key, pod.status?.nominatedNodeName, e.pi);
    } else {
      cycle.forget(key);
      queue.delete(key);
      setNominated(key, undefined);
    }
    if (group !== undefined) queue.recheckGated(tracker.membersOf(group));
  };

  const syncNode = (name: string) => {
    const node = client.get('v1/nodes', '', name);
    if (!node) {
      cache.removeNode(name);
      return;
    }
    if (cache.setNode(node)) queue.moveParked(() => true);
  };

  const guard = (what: string, fn: () => void) => {
    try {
      fn();
    } catch (err) {
      log.debug({ err }, `scheduler: handling a ${what} change failed`);
    }
  };
  const stops = [
    client.watch('v1/nodes', (c) => guard('node', () => syncNode(c.object.metadata.name ?? ''))),
    client.watch('v1/pods', (c) => guard('pod', () => syncPod(c.object.metadata.namespace ?? '', c.object.metadata.name ?? ''))),
    // Pods waiting on their claims move when a claim, a volume or a class changes.
    ...['v1/persistentvolumeclaims', 'v1/persistentvolumes', 'storage.k8s.io/v1/storageclasses'].map((key) =>
      client.watch(key, () => guard('volume', () => queue.moveParked((e) => e.rejectors.has('VolumeBinding'))))),
    // Pods waiting for devices move when a claim, a slice or a class changes.
    ...draRefs.map((key) => client.watch(key, (c) => guard('dra', () => {
      if (key === draSlicesRef) dra.invalidate();
      if (key === draClaimsRef) dra.claimChanged(c.object as ResourceClaim, c.type === 'DELETED');
      queue.moveParked((e) => e.rejectors.has(draPlugin));
    }))),
    // A Workload appearing (or changing) may let its pods pass PreEnqueue.
    client.watch(workloadsKey, (c) => guard('workload', () => queue.recheckGated(tracker.podsOfWorkload(c.object.metadata.namespace ?? '', c.object.metadata.name ?? '')))),
    clock.setInterval(() => guard('timer', () => queue.flushLongParked()), 30_000),
    watchPause(client, () => loop?.kick()),
  ];
  for (const n of client.list('v1/nodes')) guard('node', () => syncNode(n.metadata.name ?? ''));
  for (const p of client.list('v1/pods')) guard('pod', () => syncPod(p.metadata.namespace ?? '', p.metadata.name ?? '', p));
  log.debug({ nodes: cache.nodeList().length, pending: queue.entries.size }, 'scheduler started');

  return {
    stop() {
      for (const s of stops) s();
      queue.stop();
      cycle.stop();
      loop?.stop();
      defaults.stop();
    },
  };
}
