// Lesson `karpenter-consolidation`: a NodePool (add-on karpenter) launches nodes from the simulated cloud for a
// Deployment's pods; the learner scales the Deployment up and sees NodeClaims and nodes added, then scales it down
// and watches consolidation remove the nodes that are empty or whose pods fit elsewhere.
import type { Json, LessonApi } from './lesson-api.js';
import { isDeleting, labelsOf, nameOf, podNode, rec, str } from './lesson-objects.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';
import { claimName, lessonLabel, lessonMeta, lessonNamespace, livePods, secondTerminal, startOver, waitGone } from './addon-lesson-helpers.js';

const lesson = 'karpenter-consolidation';
const ns = lessonNamespace(lesson);
/** The NodePool and its KWOKNodeClass (both cluster-scoped), named after the lesson. */
export const poolName = lesson;
const app = 'workers';
/** One instance type, 4 CPUs (3.9 allocatable): three 1-CPU pods a node, so the layout is predictable. */
export const instanceType = 'c-4x-amd64-linux';
export const podsPerNode = 3;
const start = 3;
export const scaledUp = 9;
export const scaledDown = 2;
const nodePoolsPath = '/apis/karpenter.sh/v1/nodepools';
const nodeClassesPath = '/apis/karpenter.kwok.sh/v1alpha1/kwoknodeclasses';
const nodeClaimsPath = `/apis/karpenter.sh/v1/nodeclaims?labelSelector=${encodeURIComponent(`karpenter.sh/nodepool=${poolName}`)}`;
const nodesPath = `/api/v1/nodes?labelSelector=${encodeURIComponent(`karpenter.sh/nodepool=${poolName}`)}`;
const deploymentsPath = `/apis/apps/v1/namespaces/${ns}/deployments`;

export function nodeClass(): Json {
  return { apiVersion: 'karpenter.kwok.sh/v1alpha1', kind: 'KWOKNodeClass', metadata: lessonMeta(lesson, poolName, {}, true) };
}

export function nodePool(): Json {
  return {
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: lessonMeta(lesson, poolName, {}, true),
    spec: {
      template: {
        spec: {
          nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: poolName },
          requirements: [
            { key: 'node.kubernetes.io/instance-type', operator: 'In', values: [instanceType] },
            { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
          ],
        },
      },
      limits: { cpu: '64' },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '30s' },
    },
  };
}

export function deployment(): Json {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: lessonMeta(lesson, app, { app }),
    spec: {
      replicas: start, selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app, [lessonLabel]: lesson } },
        spec: {
          // Only the NodePool's nodes: the cluster's own nodes never take these pods.
          nodeSelector: { 'karpenter.sh/nodepool': poolName },
          terminationGracePeriodSeconds: 5,
          containers: [{ name: 'work', image: 'busybox', command: ['sleep', '1000000'], resources: { requests: { cpu: '1', memory: '256Mi' } } }],
        },
      },
    },
  };
}

/** The pool's nodes that are up (not being deleted). */
export function liveNodes(nodes: Json[]): Json[] {
  return nodes.filter((n) => !isDeleting(n));
}

/** `want` pods Running, on `wantNodes` (or at least that many with `atLeast`) of the pool's live nodes. */
export function placed(pods: Json[], nodes: Json[], want: number, wantNodes: number, atLeast = false): StepOutcome {
  const running = pods.filter((p) => rec(p.status).phase === 'Running' && podNode(p));
  const up = liveNodes(nodes);
  const used = new Set(running.map((p) => podNode(p)!));
  const enough = atLeast ? up.length >= wantNodes : up.length === wantNodes;
  const done = pods.length === want && running.length === want && enough && [...used].every((n) => up.some((u) => nameOf(u) === n));
  const where = [...used].sort().map((n) => `${running.filter((p) => podNode(p) === n).length} on ${n}`).join(', ');
  return { done, detail: `${running.length} pods Running, ${where}`, progress: `${running.length} pods Running (${want} wanted), ${up.length} node${up.length === 1 ? '' : 's'} in the pool` };
}

async function state(api: LessonApi): Promise<{ pods: Json[]; nodes: Json[]; claims: Json[] }> {
  const [pods, nodes, claims] = await Promise.all([livePods(api, lesson, app), api.list(nodesPath), api.list(nodeClaimsPath)]);
  return { pods, nodes, claims };
}

function claimsLine(claims: Json[]): string {
  return `NodeClaims ${claims.filter((c) => !isDeleting(c)).map((c) => `${nameOf(c)} (${str(labelsOf(c)['node.kubernetes.io/instance-type']) ?? '?'})`).join(', ')}`;
}

const create: LessonFactory = (): Lesson => {
  let most = 0;
  return {
    name: lesson,
    title: 'Lesson: Karpenter adds nodes for pods, and consolidates them away',
    intro: [
      `The lesson creates NodePool ${poolName} (instance type ${instanceType} only; consolidation`,
      `WhenEmptyOrUnderutilized after 30 s) and, in namespace ${ns}, Deployment ${app}: ${start} pods`,
      'of 1 CPU that run only on the pool\'s nodes. No node is there for them yet: Karpenter launches them from the',
      'simulated cloud.',
      secondTerminal,
    ],
    async setup(ctx) {
      const { api, say } = ctx;
      await startOver(ctx, lesson, 'karpenter', nodePoolsPath, [deploymentsPath]);
      // The pool's nodes go with it (Karpenter's finalizers drain them first).
      await claimName(api, `${nodePoolsPath}/${poolName}`, lesson);
      await claimName(api, `${nodeClassesPath}/${poolName}`, lesson);
      await waitGone(api, nodesPath, 'the earlier run\'s nodes');
      await api.create(nodeClassesPath, nodeClass());
      await api.create(nodePoolsPath, nodePool());
      say(`kwoknodeclass.karpenter.kwok.sh/${poolName} and nodepool.karpenter.sh/${poolName} created`);
      await api.create(deploymentsPath, deployment());
      say(`deployment.apps/${app} created in namespace ${ns}`);
    },
    steps: [
      {
        heading: 'Pods without a node get one',
        instructions: () => [
          `kubectl -n ${ns} get pods -o wide     # Pending at first: no node has karpenter.sh/nodepool=${poolName}`,
          'kubectl get nodeclaims                 # Karpenter\'s request for a machine, then its node',
          `kubectl get nodes -l karpenter.sh/nodepool=${poolName} -L node.kubernetes.io/instance-type`,
        ],
        async check({ api }) {
          const s = await state(api);
          const r = placed(s.pods, s.nodes, start, 1);
          return r.done ? { done: true, detail: `${r.detail} (${claimsLine(s.claims)})` } : r;
        },
        ok: 'Karpenter launched a node',
        hint: `kubectl -n ${ns} describe pods shows FailedScheduling, then Nominated; kubectl get events -A --field-selector source=karpenter`,
      },
      {
        heading: 'Scale up',
        instructions: () => [
          `kubectl -n ${ns} scale deployment/${app} --replicas ${scaledUp}   # ${podsPerNode} such pods fit a node`,
          'kubectl get nodeclaims -w',
        ],
        async check({ api }) {
          const s = await state(api);
          most = Math.max(most, liveNodes(s.nodes).length);
          const r = placed(s.pods, s.nodes, scaledUp, scaledUp / podsPerNode, true);
          return r.done ? { done: true, detail: `${liveNodes(s.nodes).length} nodes; ${r.detail}` } : r;
        },
        ok: 'Karpenter added nodes',
        hint: `kubectl -n ${ns} scale deployment/${app} --replicas ${scaledUp}`,
      },
      {
        heading: 'Scale down and watch consolidation',
        instructions: () => [
          `kubectl -n ${ns} scale deployment/${app} --replicas ${scaledDown}`,
          `kubectl get nodes -l karpenter.sh/nodepool=${poolName} -w    # tainted karpenter.sh/disrupted, then gone`,
          'kubectl get events -A --field-selector reason=DisruptionTerminating',
        ],
        async check({ api }) {
          const s = await state(api);
          most = Math.max(most, liveNodes(s.nodes).length);
          const r = placed(s.pods, s.nodes, scaledDown, 1);
          if (!r.done || s.claims.filter((c) => !isDeleting(c)).length !== 1) return { done: false, progress: r.progress };
          return { done: true, detail: `${most - 1} of ${most} nodes removed; ${r.detail}` };
        },
        ok: 'consolidation removed the spare nodes',
        hint: 'after consolidateAfter (30 s) without pod changes, Karpenter deletes empty nodes and moves pods off underused ones; kubectl get events -A --field-selector reason=Consolidating',
      },
    ],
    outro: [
      'What happened: pods that no node could take made Karpenter simulate a placement, pick the cheapest instance',
      'type the NodePool allows and create a NodeClaim for it; the simulated cloud launched the machine and its node',
      'joined. Once the pods went, the nodes that were empty, or whose pods fit on the others, were tainted',
      'karpenter.sh/disrupted, drained and deleted: consolidation keeps the cluster no larger than the pods need.',
    ],
  };
};

export default create;
