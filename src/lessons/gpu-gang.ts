// Lesson `gpu-gang`: a gang of GPU pods (a Workload with a gang policy and pods joining it through
// spec.workloadRef) that needs more GPUs than the cluster has; it stays Pending whole until the learner adds a GPU
// node, then is placed whole.
import type { Json, LessonApi } from './lesson-api.js';
import { applyCommand, condition, isDeleting, nameOf, podNode, rec, str } from './lesson-objects.js';
import { ensureLessonNamespace, lessonNamespace, resetLessonObjects } from './lesson-namespace.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';
import { quantityValue } from '../machinery/resources.js';
import { getOwn } from '../util/own.js';
import { nodeReady } from './node-failure.js';

export { applyCommand };

export const gpusPerPod = 4;
const gpu = 'nvidia.com/gpu';
/** How long the gang's reserved places are held waiting for the rest (upstream: 5 minutes). */
const gangTimeoutSeconds = 20;
const lessonName = 'gpu-gang';
const ns = lessonNamespace(lessonName);
const n = `-n ${ns}`;
const workloadsPath = `/apis/scheduling.k8s.io/v1alpha1/namespaces/${ns}/workloads`;
const podsListPath = `/api/v1/namespaces/${ns}/pods`;
const podsPath = `${podsListPath}?labelSelector=app%3Dtrain`;

/** The GPUs a node offers (allocatable), 0 when NotReady. */
export function nodeGpus(node: Json): number {
  if (!nodeReady(node)) return 0;
  return Math.max(0, Math.floor(quantityValue(getOwn(rec(rec(node.status).allocatable), gpu))));
}

/** How many pods of `gpusPerPod` GPUs the nodes could hold at most. */
export function gangPlaces(nodes: Json[]): number {
  return nodes.reduce((sum, n) => sum + Math.floor(nodeGpus(n) / gpusPerPod), 0);
}

/** A gang two pods larger than the cluster's GPU nodes can hold: one more 8-GPU node makes it fit. */
export function gangSize(nodes: Json[]): number {
  return gangPlaces(nodes) + 2;
}

/** The first `bonsai-gpu-N` name no node has. */
export function freeGpuNodeName(nodes: Json[]): string {
  const names = new Set(nodes.map(nameOf));
  let i = 1;
  while (names.has(`bonsai-gpu-${i}`)) i++;
  return `bonsai-gpu-${i}`;
}

export function workload(size: number): Json {
  return {
    apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload',
    metadata: { name: 'train', namespace: ns, labels: { 'bonsai.dev/lesson': lessonName }, annotations: { 'bonsai.dev/gang-scheduling-timeout-seconds': String(gangTimeoutSeconds) } },
    spec: { podGroups: [{ name: 'workers', policy: { gang: { minCount: size } } }] },
  };
}

export function gangPod(i: number): Json {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: { name: `train-${i}`, namespace: ns, labels: { app: 'train', 'bonsai.dev/lesson': lessonName } },
    spec: {
      workloadRef: { name: 'train', podGroup: 'workers' },
      containers: [{ name: 'trainer', image: 'pytorch/pytorch', resources: { limits: { [gpu]: String(gpusPerPod) } } }],
    },
  };
}

/** A Node with 8 GPUs, tainted as the default GPU node; the simulated kubelet serves it once it exists. */
export function gpuNode(name: string): Json {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'nvidia.com/gpu.present': 'true' } },
    spec: { taints: [{ key: gpu, value: 'present', effect: 'NoSchedule' }] },
    status: { capacity: { cpu: '64', memory: '512Gi', pods: '110', [gpu]: '8' } },
  };
}


function unschedulableMessage(pod: Json): string | undefined {
  const c = condition(pod, 'PodScheduled');
  return c && c.status === 'False' ? str(c.message) ?? str(c.reason) ?? '' : undefined;
}

/** None of the gang is bound and at least one pod says it lacks GPUs. */
export function pendingForGpus(pods: Json[], size: number): StepOutcome {
  const bound = pods.filter((p) => podNode(p)).length;
  const saying = pods.find((p) => unschedulableMessage(p)?.includes(`Insufficient ${gpu}`));
  const message = saying && unschedulableMessage(saying);
  if (pods.length === size && bound === 0 && saying) return { done: true, detail: `${nameOf(saying)} says "${message}"` };
  return { done: false, progress: `${pods.length}/${size} pods, ${bound} bound${message ? '' : ', no FailedScheduling yet'}` };
}

/** Every pod of the gang is PodScheduled=False and none holds a node. */
export function wholeGangRejected(pods: Json[], size: number): StepOutcome {
  const rejected = pods.filter((p) => unschedulableMessage(p) !== undefined && !podNode(p)).length;
  return { done: pods.length === size && rejected === size, progress: `${rejected}/${size} pods PodScheduled=False` };
}

/** Every pod of the gang is bound and running; the detail says where. */
export function gangPlaced(pods: Json[], size: number): StepOutcome {
  const live = pods.filter((p) => !isDeleting(p));
  const bound = live.filter((p) => podNode(p));
  const running = live.filter((p) => rec(p.status).phase === 'Running').length;
  const perNode = new Map<string, number>();
  for (const p of bound) perNode.set(podNode(p)!, (perNode.get(podNode(p)!) ?? 0) + 1);
  const where = [...perNode].sort(([a], [b]) => a.localeCompare(b)).map(([n, c]) => `${c} on ${n}`).join(', ');
  return { done: live.length === size && bound.length === size && running === size, detail: `${where}`, progress: `${bound.length}/${size} bound, ${running} running` };
}

const create: LessonFactory = (): Lesson => {
  let size = 0;
  let newNode = '';
  const pods = (api: LessonApi) => api.list(podsPath);
  return {
    name: lessonName,
    title: 'Lesson: a GPU gang that does not fit, until capacity is added',
    intro: [
      `The lesson creates Workload train (scheduling.k8s.io/v1alpha1) whose pod group "workers" is a gang, and pods train-0…`,
      `each asking for ${gpusPerPod} ${gpu}: two more than the GPU nodes can hold. A gang is placed whole or not at all.`,
      `Everything is in namespace ${ns} (its own: your objects elsewhere are left alone); kubectl commands below say -n ${ns}.`,
      'Keep a second terminal open for kubectl; Ctrl-C here ends the lesson (the objects stay).',
    ],
    async setup(ctx) {
      const { api, say } = ctx;
      await ensureLessonNamespace(ctx, lessonName);
      const nodes = await api.list('/api/v1/nodes');
      size = gangSize(nodes);
      newNode = freeGpuNodeName(nodes);
      const pods = Array.from({ length: size }, (_, i) => ({ listPath: podsListPath, body: gangPod(i) }));
      await resetLessonObjects({ api, say: () => undefined }, lessonName, [{ listPath: workloadsPath, body: workload(size) }, ...pods]);
      say(`workload.scheduling.k8s.io/train created (gang of ${size}, minCount ${size}; the GPU nodes hold ${size - 2} such pods)`);
      say(`pods train-0 … train-${size - 1} created`);
    },
    steps: [
      {
        heading: 'A gang that does not fit',
        instructions: () => [
          `kubectl get pods -l app=train -o wide ${n}      # all Pending, none on a node`,
          `kubectl describe pods -l app=train ${n}         # Events: FailedScheduling and why (for the pod without a place first)`,
          `kubectl describe nodes | grep -A9 'Allocated resources'   # ${gpu} requested against allocatable`,
        ],
        async check({ api }) {
          return pendingForGpus(await pods(api), size);
        },
        ok: 'the gang is Pending',
        hint: `kubectl describe pods -l app=train ${n} shows the scheduler's FailedScheduling events`,
      },
      {
        instructions: () => [
          `The gang's places are held at most ${gangTimeoutSeconds} s (the Workload's bonsai.dev/gang-scheduling-timeout-seconds; 5 minutes upstream),`,
          'then released: no GPU stays taken by a partial gang.',
        ],
        async check({ api }) {
          const r = wholeGangRejected(await pods(api), size);
          return r.done ? { done: true, detail: `all ${size} pods PodScheduled=False, none bound` } : r;
        },
        ok: 'no pod holds a GPU',
        hint: `after ${gangTimeoutSeconds} s the pods waiting for the rest of the gang are rejected too: kubectl get pods -l app=train -o wide ${n}`,
      },
      {
        heading: 'Add GPU capacity',
        instructions: () => [
          'Add a GPU node; the simulated kubelet serves every Node object you create:',
          applyCommand(gpuNode(newNode)),
          'kubectl get nodes -w',
          '(With the Karpenter add-on, a NodePool allowing GPU instance types would launch such a node for you.)',
        ],
        async check({ api }) {
          const nodes = await api.list('/api/v1/nodes');
          const places = gangPlaces(nodes);
          if (places >= size) return { done: true, detail: `the Ready GPU nodes now hold ${places} pods of ${gpusPerPod} GPUs; the gang needs ${size}` };
          return { done: false, progress: `room for ${places} of the gang's ${size} pods` };
        },
        ok: 'there is room for the gang',
        hint: 'paste the echo … | kubectl apply -f - line above into your terminal (the node must be Ready and offer nvidia.com/gpu)',
      },
      {
        instructions: () => [`kubectl get pods -l app=train -o wide -w ${n}     # bound together, across the GPU nodes`],
        async check({ api }) {
          return gangPlaced(await pods(api), size);
        },
        ok: 'the gang is placed whole',
        hint: `the scheduler tries the gang again after its back-off; kubectl get events --field-selector involvedObject.name=train-0 ${n}`,
      },
    ],
    outro: [
      'What happened: the pods waited until the Workload and all minCount pods existed, then the scheduler looked for',
      'places for the whole group at once; with too few GPUs it bound none and released what it had reserved. Once',
      'the new node joined, the group was placed in one attempt and bound together.',
    ],
  };
};

export default create;
