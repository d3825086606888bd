// The LeaderWorkerSet add-on (kubernetes-sigs/lws, leaderworkerset.x-k8s.io/v1): the CRD, the LeaderWorkerSet and
// pod reconcilers, and the pod defaulting and LeaderWorkerSet validation upstream does in webhooks (here in-process
// admission plugins).
import type { Pod } from 'kubernetes-types/core/v1.js';
import type { StatefulSet } from 'kubernetes-types/apps/v1.js';
import type { Addon, AddonContext, AddonHandle } from '../types.js';
import { EventRecorder } from '../../client/event-recorder.js';
import { addAdmission } from '../../client/services.js';
import type { Change } from '../../client/types.js';
import { WorkQueue } from '../../util/work-queue.js';
import { labels as L, lwsResource } from './types.js';
import { groupKey, podRes, rememberDeletedPod, setKey, stsRes, svcRes, type LwsContext } from './context.js';
import { reconcileLws } from './lws-controller.js';
import { reconcilePod } from './pod-controller.js';
import { lwsPodAdmission } from './pod-defaulter.js';
import { lwsWebhook } from './webhook.js';
import { keyOf, splitKey } from '../../machinery/object-key.js';

const nsName = (key: string): [string, string] => {
  const { namespace, name } = splitKey(key);
  return [namespace, name];
};

function start(actx: AddonContext): AddonHandle {
  const { client, log } = actx;
  const recorder = new EventRecorder(client, { component: 'lws-controller-manager' });
  const pods = client.informer<Pod>(podRes, { indexes: { set: (p) => setKey(p), group: (p) => groupKey(p) } });
  const statefulSets = client.informer<StatefulSet>(stsRes, { indexes: { set: (s) => setKey(s) } });
  const ctx: LwsContext = { client, recorder, pods, statefulSets, deletedPods: new Map() };
  const lwsQueue = new WorkQueue('leaderworkerset', (key) => reconcileLws(ctx, ...nsName(key)), actx.clock, log);
  const podQueue = new WorkQueue('leaderworkerset-pod', (key) => reconcilePod(ctx, ...nsName(key)), actx.clock, log);
  const removeAdmission = addAdmission(client, lwsPodAdmission(client));
  const removeWebhook = addAdmission(client, lwsWebhook());
  const unsubs: Array<() => void> = [];
  const objKey = (c: Change) => keyOf(c.object);
  unsubs.push(client.watch(lwsResource, (c) => lwsQueue.add(objKey(c))));
  unsubs.push(pods.onChange((c) => {
    const set = setKey(c.object);
    if (set === undefined) return;
    if (c.type === 'DELETED') rememberDeletedPod(ctx, objKey(c), c.object as Pod);
    podQueue.add(objKey(c));
    lwsQueue.add(set);
  }));
  unsubs.push(statefulSets.onChange((c) => {
    const set = setKey(c.object);
    if (set !== undefined) lwsQueue.add(set);
    const owner = c.object.metadata.ownerReferences?.find((r) => r.controller);
    if (owner?.kind === 'Pod') podQueue.add(`${c.object.metadata.namespace ?? ''}/${owner.name}`);
  }));
  unsubs.push(client.watch(svcRes, (c) => {
    const set = c.type === 'DELETED' ? setKey(c.object) : undefined;
    if (set !== undefined) lwsQueue.add(set);
    const owner = c.object.metadata.ownerReferences?.find((r) => r.controller);
    if (c.type === 'DELETED' && owner?.kind === 'Pod' && c.object.metadata.labels?.[L.setName]) podQueue.add(`${c.object.metadata.namespace ?? ''}/${owner.name}`);
  }));
  // Sets (and their pods) that exist already: a restart picks them up.
  for (const o of client.list(lwsResource)) lwsQueue.add(`${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`);
  for (const p of pods.list()) if (setKey(p) !== undefined) podQueue.add(`${p.metadata?.namespace ?? ''}/${p.metadata?.name ?? ''}`);
  return {
    stop() {
      for (const u of unsubs) u();
      lwsQueue.stop();
      podQueue.stop();
      pods.stop();
      statefulSets.stop();
      removeAdmission();
      removeWebhook();
    },
  };
}

export const lwsAddon: Addon = {
  name: 'lws',
  crds: ['src/addons/lws/crds/leaderworkerset.x-k8s.io_leaderworkersets.yaml'],
  start,
};
