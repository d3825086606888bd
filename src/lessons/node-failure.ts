// Lesson `node-failure`: a Deployment protected by a PodDisruptionBudget; a node fails (NotReady, its pods evicted
// and replaced), the learner drains a second node while the budget keeps minAvailable, then brings both back.
import { simAnnotations } from '../kubelet/annotations.js';
import type { Json, LessonApi } from './lesson-api.js';
import { annotationsOf, arr, condition, isDeleting, nameOf, num, podNode, podReady, rec, str } from './lesson-objects.js';
import { ensureLessonNamespace, lessonNamespace, resetLessonObjects } from './lesson-namespace.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';
import { rolledOut } from './rolling-update.js';

const replicas = 4;
const minAvailable = 3;
/** How long the pods stay on an unreachable node before eviction (the admission default is 300 s). */
const tolerationSeconds = 30;
const lessonName = 'node-failure';
const ns = lessonNamespace(lessonName);
const n = `-n ${ns}`;
const deploymentsPath = `/apis/apps/v1/namespaces/${ns}/deployments`;
const pdbsPath = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`;
const deployPath = `${deploymentsPath}/frontend`;
const pdbPath = `${pdbsPath}/frontend`;
const podsPath = `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dfrontend`;

export function manifests(): { deployment: Json; pdb: Json } {
  const toleration = (key: string) => ({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds });
  return {
    deployment: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'frontend', namespace: ns, labels: { app: 'frontend', 'bonsai.dev/lesson': lessonName } },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'frontend' } },
        template: {
          metadata: { labels: { app: 'frontend', 'bonsai.dev/lesson': lessonName } },
          spec: {
            tolerations: [toleration('node.kubernetes.io/unreachable'), toleration('node.kubernetes.io/not-ready')],
            containers: [{ name: 'frontend', image: 'nginx:1.27', resources: { requests: { cpu: '100m', memory: '64Mi' } } }],
          },
        },
      },
    },
    pdb: {
      apiVersion: 'policy/v1', kind: 'PodDisruptionBudget',
      metadata: { name: 'frontend', namespace: ns, labels: { 'bonsai.dev/lesson': lessonName } },
      spec: { minAvailable, selector: { matchLabels: { app: 'frontend' } } },
    },
  };
}

export function nodeReady(node: Json): boolean {
  return condition(node, 'Ready')?.status === 'True';
}
function untainted(node: Json): boolean {
  return arr(rec(node.spec).taints).every((t) => t.effect !== 'NoSchedule' && t.effect !== 'NoExecute');
}
/** Nodes where the lesson's pods can run: Ready, schedulable, without NoSchedule/NoExecute taints. */
export function usableNodes(nodes: Json[]): string[] {
  return nodes.filter((n) => nodeReady(n) && rec(n.spec).unschedulable !== true && untainted(n)).map(nameOf).sort();
}

/** The node (among `candidates`) running the most live pods, ties broken by name. */
export function busiestNode(pods: Json[], candidates: string[]): string | undefined {
  const count = (n: string) => pods.filter((p) => podNode(p) === n && !isDeleting(p)).length;
  return [...candidates].sort((a, b) => count(b) - count(a) || a.localeCompare(b))[0];
}

/** The failed node's pods are evicted and enough ready replacements run elsewhere. */
export function evictedAndReplaced(pods: Json[], failed: string): StepOutcome {
  const onFailed = pods.filter((p) => podNode(p) === failed);
  const live = onFailed.filter((p) => !isDeleting(p)).length;
  const readyElsewhere = pods.filter((p) => podReady(p) && podNode(p) !== failed).length;
  const done = live === 0 && readyElsewhere >= replicas;
  return {
    done,
    detail: `${onFailed.length} pod${onFailed.length === 1 ? '' : 's'} evicted from ${failed} (Terminating until the node is back), ${readyElsewhere} ready elsewhere`,
    progress: `${onFailed.length - live}/${onFailed.length} pods on ${failed} evicted, ${readyElsewhere}/${replicas} ready elsewhere`,
  };
}

/** `node` is cordoned, none of the pods is on it any more, and all replicas are ready again. */
export function drained(node: Json, pods: Json[]): StepOutcome {
  const name = nameOf(node);
  const cordoned = rec(node.spec).unschedulable === true;
  const left = pods.filter((p) => podNode(p) === name).length;
  const ready = pods.filter(podReady).length;
  return {
    done: cordoned && left === 0 && ready >= replicas,
    progress: `${name} ${cordoned ? 'cordoned' : 'schedulable'}, ${left} frontend pod${left === 1 ? '' : 's'} on it, ${ready}/${replicas} ready`,
  };
}

const create: LessonFactory = (): Lesson => {
  let failed = '';
  let drainedNode = '';
  let lowest = Number.POSITIVE_INFINITY;
  const node = async (api: LessonApi, name: string) => (await api.get(`/api/v1/nodes/${encodeURIComponent(name)}`)) ?? {};
  return {
    name: lessonName,
    title: 'Lesson: a node fails, and a drain that a PodDisruptionBudget keeps safe',
    intro: [
      `The lesson creates Deployment frontend (${replicas} replicas) and PodDisruptionBudget frontend (minAvailable ${minAvailable})`,
      `in namespace ${ns} (its own: your objects elsewhere are left alone). Every kubectl command below says -n ${ns}.`,
      `Its pods tolerate an unreachable node for ${tolerationSeconds} s (the default, added by admission, is 300 s).`,
      'Keep a second terminal open for kubectl; Ctrl-C here ends the lesson (the objects stay).',
    ],
    async setup(ctx) {
      const { api } = ctx;
      const usable = usableNodes(await api.list('/api/v1/nodes'));
      if (usable.length < 3) {
        throw new Error(`this lesson needs 3 Ready, schedulable nodes without taints; there are ${usable.length} (${usable.join(', ') || 'none'}): start stopped nodes (npx bonsai node start NAME) and uncordon cordoned ones`);
      }
      await ensureLessonNamespace(ctx, lessonName);
      const m = manifests();
      await resetLessonObjects(ctx, lessonName, [{ listPath: deploymentsPath, body: m.deployment }, { listPath: pdbsPath, body: m.pdb }]);
    },
    steps: [
      {
        heading: 'Meet frontend',
        instructions: () => [`kubectl get pods -l app=frontend -o wide ${n}`, `kubectl get pdb frontend ${n}     # ALLOWED DISRUPTIONS: how many pods may go now`],
        async check({ api }) {
          const d = await api.get(deployPath);
          const pdb = await api.get(pdbPath);
          if (!d || !pdb) return { done: false, progress: 'deployment or budget frontend is gone' };
          const r = rolledOut(d);
          const allowed = num(rec(pdb.status).disruptionsAllowed);
          if (!r.done || allowed < 1) return { done: false, progress: `${r.progress}, the budget allows ${allowed} disruption(s)` };
          const pods = (await api.list(podsPath)).filter((p) => !isDeleting(p));
          const nodes = [...new Set(pods.map(podNode).filter((n): n is string => !!n))].sort();
          failed = busiestNode(pods, nodes) ?? '';
          return { done: true, detail: `${replicas} pods on ${nodes.join(', ')}; the budget allows ${allowed} disruption` };
        },
        ok: 'frontend is Available',
        hint: `the pods start in a few seconds; kubectl get pods -l app=frontend -w ${n}`,
      },
      {
        heading: 'A node fails',
        instructions: () => [
          `npx bonsai node stop ${failed}        # its kubelet stops (or: kubectl annotate node ${failed} ${simAnnotations.nodeStopped}=true)`,
          'kubectl get nodes -w                     # NotReady once it has missed heartbeats for 50 s',
        ],
        async check({ api }) {
          const n = await node(api, failed);
          const ready = condition(n, 'Ready');
          if (ready && ready.status !== 'True') return { done: true, detail: `${failed} is NotReady (Ready=${str(ready.status) ?? '?'}: ${str(ready.reason) ?? ''})` };
          const stopped = annotationsOf(n)[simAnnotations.nodeStopped] === 'true';
          return { done: false, progress: stopped ? `${failed} stopped; waiting for the node lifecycle controller to miss its heartbeats` : undefined };
        },
        ok: 'the node failed',
        hint: `stop the node with npx bonsai node stop ${failed}; after that it takes 50 s of missed heartbeats to turn NotReady`,
      },
      {
        instructions: () => [
          `kubectl describe node ${failed}         # Taints: node.kubernetes.io/unreachable`,
          `kubectl get pods -l app=frontend -o wide -w ${n}   # ${tolerationSeconds} s later its pods are evicted and replaced`,
          `kubectl get events --field-selector reason=TaintManagerEviction ${n}`,
        ],
        async check({ api }) {
          return evictedAndReplaced(await api.list(podsPath), failed);
        },
        ok: 'its pods were evicted and replaced',
        hint: `the pods tolerate the unreachable taint for ${tolerationSeconds} s, then the taint-eviction controller deletes them and the ReplicaSet makes new ones`,
      },
      {
        heading: 'Drain a second node',
        async instructions({ api }) {
          const pods = (await api.list(podsPath)).filter((p) => !isDeleting(p));
          const candidates = usableNodes(await api.list('/api/v1/nodes')).filter((n) => n !== failed);
          drainedNode = busiestNode(pods, candidates) ?? candidates[0] ?? '';
          return [
            `kubectl drain ${drainedNode} --ignore-daemonsets --delete-emptydir-data`,
            `kubectl get pdb frontend -w ${n}        # the budget allows one eviction at a time: drain retries the others`,
            `                                    # (429 Too Many Requests) until a replacement is ready elsewhere`,
          ];
        },
        async check({ api }) {
          const pods = await api.list(podsPath);
          lowest = Math.min(lowest, pods.filter(podReady).length);
          const r = drained(await node(api, drainedNode), pods);
          const note = lowest >= minAvailable ? `never fewer than ${lowest} ready (minAvailable ${minAvailable})` : `once only ${lowest} ready (below minAvailable ${minAvailable}!)`;
          return r.done ? { done: true, detail: `${drainedNode} is cordoned and empty; ${note}` } : r;
        },
        ok: 'the node is drained',
        hint: `run kubectl drain ${drainedNode} --ignore-daemonsets --delete-emptydir-data (it waits while the budget refuses evictions)`,
      },
      {
        heading: 'Bring the nodes back',
        instructions: () => [`kubectl uncordon ${drainedNode}`, `npx bonsai node start ${failed}`, 'kubectl get nodes'],
        async check({ api }) {
          const d = await node(api, drainedNode);
          const f = await node(api, failed);
          const schedulable = rec(d.spec).unschedulable !== true;
          const ready = nodeReady(f);
          return { done: schedulable && ready, detail: `${drainedNode} schedulable, ${failed} Ready`, progress: `${drainedNode} ${schedulable ? 'schedulable' : 'cordoned'}, ${failed} ${ready ? 'Ready' : 'NotReady'}` };
        },
        ok: 'both nodes are back',
        hint: `kubectl uncordon ${drainedNode} and npx bonsai node start ${failed} (or kubectl annotate node ${failed} ${simAnnotations.nodeStopped}-)`,
      },
      {
        async check({ api }) {
          const left = (await api.list(podsPath)).filter((p) => podNode(p) === failed).length;
          return { done: left === 0, detail: `the kubelet of ${failed} finished terminating them`, progress: `${left} evicted pod(s) still Terminating on ${failed}` };
        },
        ok: 'the evicted pods are gone',
        hint: `once ${failed}'s kubelet runs again it stops the pods that were evicted while it was away`,
      },
    ],
    outro: [
      'What happened: the failed node stopped renewing its Lease, so the node lifecycle controller marked it NotReady and',
      'tainted it unreachable; once the pods\' toleration ran out they were evicted and replaced elsewhere. The drain',
      'evicted pods through the Eviction API, which the PodDisruptionBudget refused whenever fewer than',
      `${minAvailable} would have stayed available, so frontend kept serving throughout.`,
    ],
  };
};

export default create;
