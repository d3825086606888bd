// The LeaderWorkerSet add-on (kubernetes-sigs/lws, leaderworkerset.x-k8s.io/v1): the CRD, the LeaderWorkerSet and
// pod reconcilers, and the pod defaulting and LeaderWorkerSet validation upstream does in webhooks (here in-process
// admission plugins).
import type { Pod } from '../../generated/k8s/core/v1.js';
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { Addon, AddonContext, AddonHandle } from '../types.js';
import { EventRecorder } from '../../client/event-recorder.js';
import type { Change } from '../../client/types.js';
import { defineController, Manager, type ControllerContext } from '../../controllers/runtime/index.js';
import { labels as L, lwsResource } from './types.js';
import { groupKey, podRes, rememberDeletedPod, setKey, stsRes, svcRes, type LwsContext } from './context.js';
import { reconcileLws } from './lws-controller.js';
import { reconcilePod } from './pod-controller.js';
import { lwsPodAdmission } from './pod-defaulter.js';
import { lwsWebhook } from './webhook.js';
import { keyFor, keyOf, splitKey } from '../../machinery/object-key.js';

const nsName = (key: string): [string, string] => {
  const { namespace, name } = splitKey(key);
  return [namespace, name];
};

/** The pod a StatefulSet or Service belongs to (a leader pod owns its group's workers and their Service). */
const ownerPodKey = (c: Change): string[] => {
  const owner = c.object.metadata.ownerReferences?.find((r) => r.controller);
  return owner?.kind === 'Pod' ? [keyFor(c.object.metadata.namespace, owner.name)] : [];
};

const setOf = (c: Change): string[] => {
  const set = setKey(c.object);
  return set === undefined ? [] : [set];
};

function start(actx: AddonContext): AddonHandle {
  const { client } = actx;
  const recorder = new EventRecorder(client, { component: 'lws-controller-manager' });
  // What both reconcilers share, made from the manager's informers when the first starts.
  let shared: LwsContext | undefined;
  const lwsContext = ({ informers }: ControllerContext): LwsContext => (shared ??= {
    client, recorder, deletedPods: new Map(),
    pods: informers.informer<Pod>(podRes, { set: setKey, group: groupKey }),
    statefulSets: informers.informer<StatefulSet>(stsRes, { set: setKey }),
  });
  const lws = defineController({
    name: 'leaderworkerset',
    for: lwsResource,
    watches: [
      { resource: podRes, map: setOf },
      { resource: stsRes, map: setOf },
      { resource: svcRes, when: (c) => c.type === 'DELETED', map: setOf },
    ],
    setup: (ctx) => {
      const l = lwsContext(ctx);
      return { reconcile: (key: string) => reconcileLws(l, ...nsName(key)) };
    },
  });
  const pods = defineController({
    name: 'leaderworkerset-pod',
    watches: [
      {
        resource: podRes,
        when: (c) => setKey(c.object) !== undefined,
        map: (c, ctx) => {
          if (c.type === 'DELETED') rememberDeletedPod(lwsContext(ctx), keyOf(c.object), c.object as Pod);
          return [keyOf(c.object)];
        },
      },
      { resource: stsRes, map: ownerPodKey },
      { resource: svcRes, when: (c) => c.type === 'DELETED' && !!c.object.metadata.labels?.[L.setName], map: ownerPodKey },
    ],
    // Sets (and their pods) that exist already: a restart picks them up.
    initialKeys: (ctx) => lwsContext(ctx).pods.list().filter((p) => setKey(p) !== undefined).map(keyOf),
    setup: (ctx) => {
      const l = lwsContext(ctx);
      return { reconcile: (key: string) => reconcilePod(l, ...nsName(key)) };
    },
  });
  const removeAdmission = client.services.addAdmission(lwsPodAdmission(client));
  const removeWebhook = client.services.addAdmission(lwsWebhook());
  const manager = new Manager({ client, clock: actx.clock, log: actx.log }).add(lws).add(pods).start();
  return {
    stop() {
      manager.stop();
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
