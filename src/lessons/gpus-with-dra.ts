// Lesson `gpus-with-dra`: GPUs through Dynamic Resource Allocation with the simulated driver gpu.bonsai.dev. A pod
// asks (through a ResourceClaimTemplate with a CEL selector on memory) for a GPU larger than any in the cluster and
// stays Pending; the learner asks for what there is, shares one claim between two pods, then adds an A100 node
// partitioned with MIG and runs three pods on slices of its one GPU.
import type { Json, LessonApi } from './lesson-api.js';
import { applyCommand, arr, condition, isDeleting, nameOf, podNode, rec, str } from './lesson-objects.js';
import { ensureLessonNamespace, lessonNamespace, resetLessonObjects } from './lesson-namespace.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';

const lessonName = 'gpus-with-dra';
const ns = lessonNamespace(lessonName);
const n = `-n ${ns}`;
const driver = 'gpu.bonsai.dev';
const resourceGroup = '/apis/resource.k8s.io/v1';
const templatesPath = `${resourceGroup}/namespaces/${ns}/resourceclaimtemplates`;
const claimsPath = `${resourceGroup}/namespaces/${ns}/resourceclaims`;
const podsPath = `/api/v1/namespaces/${ns}/pods`;
const lessonLabels = { 'bonsai.dev/lesson': lessonName };
export const migNodeName = 'bonsai-a100-mig-1';
export const migProfile = '1g.5gb';
export const slicePods = ['slice-0', 'slice-1', 'slice-2'];

/** A CEL selector; strings in double quotes, so the JSON fits in a single-quoted shell line. */
const cel = (expression: string) => [{ cel: { expression } }];
const memoryAtLeast = (q: string) => cel(`device.capacity["${driver}"].memory.compareTo(quantity("${q}")) >= 0`);

function request(deviceClassName: string, selectors: Json[]): Json {
  return { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName, selectors } }] } };
}

export function claimTemplate(name: string, deviceClassName: string, selectors: Json[]): Json {
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name, namespace: ns, labels: lessonLabels }, spec: { spec: request(deviceClassName, selectors) } };
}

/** A CUDA pod using one claim (`{resourceClaimTemplateName}` or `{resourceClaimName}`), tolerating the GPU taint. */
export function gpuPod(name: string, claim: Json): Json {
  return {
    apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns, labels: lessonLabels },
    spec: {
      resourceClaims: [{ name: 'gpu', ...claim }],
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
      containers: [{ name: 'cuda', image: 'nvidia/cuda:12.4.1-base-ubuntu22.04', command: ['sleep', '3600'], resources: { claims: [{ name: 'gpu' }] } }],
    },
  };
}

export const tooBig = () => claimTemplate('gpu-96gb', driver, memoryAtLeast('96Gi'));
export const fits = () => claimTemplate('gpu-80gb', driver, memoryAtLeast('80Gi'));
export function sharedClaim(): Json {
  return { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'shared-gpu', namespace: ns, labels: lessonLabels }, spec: request(driver, memoryAtLeast('80Gi')) };
}
export const migTemplate = () => claimTemplate('mig-slice', `mig.${driver}`, cel(`device.attributes["${driver}"].profile == "${migProfile}"`));

/** An A100 40GB node whose one GPU the driver publishes as MIG partitions (label bonsai.dev/gpu-mig). */
export function migNode(): Json {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: {
      name: migNodeName,
      labels: { ...lessonLabels, 'kubernetes.io/hostname': migNodeName, 'nvidia.com/gpu.present': 'true', 'nvidia.com/gpu.product': 'NVIDIA-A100-SXM4-40GB', 'bonsai.dev/gpu-mig': 'true' },
    },
    spec: { taints: [{ key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' }] },
    status: { capacity: { cpu: '32', memory: '256Gi', pods: '110', 'nvidia.com/gpu': '1' } },
  };
}

/** One line applying `items` as a List. */
export function applyItems(items: Json[]): string {
  return applyCommand({ apiVersion: 'v1', kind: 'List', items });
}

/** The PodScheduled=False message of a pod, or undefined. */
export function unschedulable(pod: Json | undefined): string | undefined {
  const c = pod && condition(pod, 'PodScheduled');
  return c?.status === 'False' ? str(c.message) ?? str(c.reason) ?? '' : undefined;
}

/** The devices (`pool/device`) a claim was allocated. */
export function allocatedDevices(claim: Json): string[] {
  return arr(rec(rec(rec(claim.status).allocation).devices).results).map((r) => `${str(r.pool) ?? '?'}/${str(r.device) ?? '?'}`);
}

/** The claim each of a pod's resourceClaims got (status.resourceClaimStatuses, else the shared claim's name). */
export function claimNameOf(pod: Json): string | undefined {
  return str(arr(rec(pod.status).resourceClaimStatuses)[0]?.resourceClaimName) ?? str(arr(rec(pod.spec).resourceClaims)[0]?.resourceClaimName);
}

function running(pod: Json | undefined): boolean {
  return !!pod && !isDeleting(pod) && rec(pod.status).phase === 'Running';
}

/** Each named pod is Running with an allocated claim; the detail lists where. */
export async function podsOnDevices(api: LessonApi, names: string[]): Promise<StepOutcome & { devices: string[] }> {
  const devices: string[] = [];
  const where: string[] = [];
  for (const name of names) {
    const pod = await api.get(`${podsPath}/${name}`);
    const claimName = pod && claimNameOf(pod);
    const claim = claimName ? await api.get(`${claimsPath}/${claimName}`) : undefined;
    const got = claim ? allocatedDevices(claim) : [];
    if (!running(pod) || !got.length) {
      const why = pod ? unschedulable(pod) ?? str(rec(pod.status).phase) ?? 'Pending' : 'not created yet';
      return { done: false, devices, progress: `${name}: ${why}` };
    }
    devices.push(...got);
    where.push(`${name} on ${podNode(pod!) ?? '?'} (${got.join(', ')})`);
  }
  return { done: true, devices, detail: where.join('; ') };
}

const create: LessonFactory = (): Lesson => ({
  name: lessonName,
  title: 'Lesson: GPUs with Dynamic Resource Allocation: a model, a shared claim, MIG slices',
  intro: [
    `The lesson works in namespace ${ns} (its own: your objects elsewhere are left alone); kubectl commands say -n ${ns}.`,
    `It creates ResourceClaimTemplate gpu-96gb (a ${driver} GPU with at least 96Gi of memory) and pod trainer using it.`,
    'Keep a second terminal open for kubectl; Ctrl-C here ends the lesson (the objects stay).',
  ],
  async setup(ctx) {
    const slices = (await ctx.api.list(`${resourceGroup}/resourceslices`)).filter((s) => rec(s.spec).driver === driver);
    if (!slices.length) throw new Error(`this lesson needs a GPU node published by the ${driver} driver (the default cluster's bonsai-gpu-1); none has ResourceSlices`);
    await ensureLessonNamespace(ctx, lessonName);
    await resetLessonObjects(ctx, lessonName, [
      { listPath: templatesPath, body: tooBig() },
      { listPath: podsPath, body: gpuPod('trainer', { resourceClaimTemplateName: 'gpu-96gb' }) },
    ], [claimsPath]);
  },
  steps: [
    {
      heading: 'A GPU the cluster does not have',
      instructions: () => [
        'kubectl get resourceslices                 # what the driver publishes: one pool per GPU node',
        `kubectl get resourceslices -o jsonpath='{.items[*].spec.devices[*].capacity.memory.value}'   # 80Gi each`,
        `kubectl get pod trainer ${n}             # Pending`,
        `kubectl describe pod trainer ${n}        # Events: FailedScheduling … cannot allocate all claims`,
      ],
      async check({ api }) {
        const message = unschedulable(await api.get(`${podsPath}/trainer`));
        if (message?.includes('cannot allocate all claims')) return { done: true, detail: `trainer: "${message}"` };
        return { done: false, progress: message ? `trainer: ${message}` : 'trainer not tried by the scheduler yet' };
      },
      ok: 'trainer does not fit',
      hint: `kubectl describe pod trainer ${n} shows the scheduler's reason; the selector asks for 96Gi, the H100s have 80Gi`,
    },
    {
      heading: 'Ask for what there is',
      instructions: () => [
        'A template asking for 80Gi, and a pod using it (claim templates cannot be changed, so this is a new one):',
        applyItems([fits(), gpuPod('trainer-80gb', { resourceClaimTemplateName: 'gpu-80gb' })]),
        `kubectl delete pod trainer ${n}`,
        `kubectl get resourceclaims ${n}          # trainer-80gb-gpu-xxxxx  allocated,reserved`,
        `kubectl exec trainer-80gb ${n} -- nvidia-smi -L`,
      ],
      async check({ api }) {
        const r = await podsOnDevices(api, ['trainer-80gb']);
        return r.done ? { done: true, detail: r.detail } : r;
      },
      ok: 'trainer-80gb runs on a GPU of its own',
      hint: 'paste the echo … | kubectl apply -f - line above; the scheduler then allocates an H100 to its claim',
    },
    {
      heading: 'One claim, two pods',
      instructions: () => [
        'A ResourceClaim made once and named by two pods: both get the same GPU.',
        applyItems([sharedClaim(), gpuPod('reader-a', { resourceClaimName: 'shared-gpu' }), gpuPod('reader-b', { resourceClaimName: 'shared-gpu' })]),
        `kubectl get resourceclaim shared-gpu ${n} -o jsonpath='{.status.reservedFor[*].name}'   # reader-a reader-b`,
        `kubectl exec reader-a ${n} -- printenv NVIDIA_VISIBLE_DEVICES; kubectl exec reader-b ${n} -- printenv NVIDIA_VISIBLE_DEVICES`,
      ],
      async check({ api }) {
        const r = await podsOnDevices(api, ['reader-a', 'reader-b']);
        if (!r.done) return r;
        const claim = await api.get(`${claimsPath}/shared-gpu`);
        const reserved = arr(rec(claim?.status).reservedFor).map(nameOf).sort();
        const same = new Set(r.devices).size === 1;
        if (same && reserved.length === 2) return { done: true, detail: `reader-a and reader-b share ${r.devices[0]}` };
        return { done: false, progress: `claim shared-gpu reserved for ${reserved.join(', ') || 'nobody'}` };
      },
      ok: 'two pods share one GPU',
      hint: 'paste the apply line above; kubectl get resourceclaim shared-gpu -o yaml shows its allocation and reservedFor',
    },
    {
      heading: 'Slices of a GPU (MIG)',
      instructions: () => [
        `Add an A100 node whose GPU the driver splits into MIG partitions (node label bonsai.dev/gpu-mig=true), and three`,
        `pods each asking for a ${migProfile} slice (DeviceClass mig.${driver}):`,
        applyItems([migNode(), migTemplate(), ...slicePods.map((p) => gpuPod(p, { resourceClaimTemplateName: 'mig-slice' }))]),
        `kubectl get resourceslices --field-selector spec.nodeName=${migNodeName} -o jsonpath='{.items[*].spec.devices[*].name}'`,
        `kubectl get pods -o wide ${n}            # slice-0…2 all on ${migNodeName}`,
        `kubectl get resourceclaims ${n} -o custom-columns=NAME:.metadata.name,DEVICE:.status.allocation.devices.results[0].device`,
      ],
      async check({ api }) {
        const r = await podsOnDevices(api, slicePods);
        if (!r.done) return r;
        const distinct = new Set(r.devices).size === slicePods.length;
        const onMig = r.devices.every((d) => d.startsWith(`${migNodeName}/`) && d.includes('-mig-'));
        return { done: distinct && onMig, detail: `three ${migProfile} partitions of one A100: ${r.devices.map((d) => d.split('/')[1]).join(', ')}`, progress: r.detail };
      },
      ok: 'three pods on slices of one GPU',
      hint: `paste the apply line above; the node must be Ready and its ResourceSlices published before the pods fit`,
    },
  ],
  outro: [
    'What happened: the driver published each GPU (and each MIG placement) as a device with attributes and capacity;',
    'a claim\'s CEL selector picked among them, and the scheduler allocated a device that met it on the pod\'s node.',
    'A claim made once can serve several pods; MIG partitions of one GPU are separate devices that never overlap.',
  ],
});

export default create;
