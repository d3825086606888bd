// The simulated cluster's shape: node pools and kubelet timings, from defaults, `--nodes` or a YAML cluster file.
//
// Cluster file (every field optional except a pool's name):
//   region: region-1                      # topology.kubernetes.io/region of every node
//   nodePools:
//     - name: worker                      # nodes are named bonsai-<pool>-1, bonsai-<pool>-2, ...
//       count: 3
//       cpu: 8                            # capacity; allocatable keeps back what the kubelet reserves
//       memory: 32Gi
//       pods: 110
//       ephemeralStorage: 100Gi
//       resources: { nvidia.com/gpu: 8 }  # extended resources
//       instanceType: bonsai-standard-8   # node.kubernetes.io/instance-type
//       zones: [zone-a, zone-b, zone-c]   # spread round robin
//       labels: { team: ml }
//       taints: [{ key: nvidia.com/gpu, value: present, effect: NoSchedule }]
//       gpu: { model: h100-80gb, count: 8, mig: true }  # GPUs for the DRA driver gpu.bonsai.dev (h100-80gb,
//                                         # a100-40gb, a100-80gb, l4, t4): nvidia.com/gpu capacity, NVIDIA's labels,
//                                         # and with mig, MIG partitions published as devices
//   addons:                               # settings of add-ons, by add-on name; each add-on reads its own
//     karpenter: { instanceTypes: [...] } # (see the add-on's documentation)
//   kubelet:                              # simulated pod lifecycle delays, in seconds
//     sandboxSeconds: 0.05
//     pullSeconds: 0.2
//     startSeconds: 0.1
//     defaultRunSeconds: 1
//   registry:                             # the simulated image registry (src/kubelet/registry)
//     unknownRepositories: pull           # pull | fail
//     images: { example.com/team/app: [v1, v2] }
//     failing: [nginx:1.25.3]
//   kubeSystem: true                      # CoreDNS, kube-proxy, mirror pods (default: with 1 to 20 pool nodes)
//   controlPlane: true                    # node bonsai-control-plane, as kind's (role label, NoSchedule taint, the
//                                         # control plane's static pods); default true. Pool nodes carry no role
//                                         # label (ROLES <none>, as kind's workers) unless their `labels` give one.
import { readFileSync } from 'node:fs';
import { yaml } from '../util/yaml.js';
import { isRecord } from '../machinery/types.js';
import { parseQuantity } from '../machinery/quantity.js';
import { defaultTimings, type KubeletTimings } from '../kubelet/types.js';
import { gpuModel, gpuModelAliases } from '../kubelet/dra/gpu-models.js';
import { migLabel } from '../kubelet/dra/gpu-slices.js';
import { defaultRegistrySettings, readRegistrySettings, type RegistrySettings } from '../kubelet/registry/image-registry.js';

export interface TaintConfig {
  key: string;
  value?: string;
  effect: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
}

export interface NodePoolConfig {
  name: string;
  count: number;
  cpu: string;
  memory: string;
  pods: number;
  ephemeralStorage: string;
  /** Extended resources (name -> quantity). */
  resources: Record<string, string>;
  instanceType: string;
  zones: string[];
  labels: Record<string, string>;
  taints: TaintConfig[];
}

export interface ClusterConfig {
  region: string;
  nodePools: NodePoolConfig[];
  kubelet: KubeletTimings;
  /** Each add-on's raw settings (the `addons` mapping, by add-on name), validated by the add-on that reads them. */
  addons: Map<string, unknown>;
  /** The simulated image registry (the `registry` section): extra images, failing references, unknown repositories. */
  registry: RegistrySettings;
  /** Whether kube-system gets CoreDNS, kube-proxy and the control-plane mirror pods (`kubeSystem`; default: with 1 to 20 pool nodes, or the control-plane node alone). */
  kubeSystem?: boolean;
  /** Whether the cluster has node bonsai-control-plane, as kind's control-plane node (`controlPlane`; default: yes, unless `--nodes 0`). */
  controlPlane: boolean;
}

export class ClusterConfigError extends Error {}

export const defaultRegion = 'region-1';
const defaultZones = ['zone-a', 'zone-b', 'zone-c'];

/** The labels the NVIDIA GPU operator (GPU feature discovery) puts on an H100 node. */
const h100Labels: Record<string, string> = {
  'nvidia.com/gpu.present': 'true',
  'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3',
  'nvidia.com/gpu.count': '8',
  'nvidia.com/gpu.memory': '81559',
  'nvidia.com/gpu.family': 'hopper',
  'nvidia.com/gpu.compute.major': '9',
  'nvidia.com/gpu.compute.minor': '0',
  'nvidia.com/cuda.driver.major': '550',
  'nvidia.com/cuda.driver.minor': '127',
  'nvidia.com/cuda.driver.rev': '08',
  'nvidia.com/cuda.runtime.major': '12',
  'nvidia.com/cuda.runtime.minor': '4',
  'nvidia.com/mig.capable': 'true',
};

export function workerPool(count: number): NodePoolConfig {
  return {
    name: 'worker', count, cpu: '8', memory: '32Gi', pods: 110, ephemeralStorage: '100Gi', resources: {},
    instanceType: 'bonsai-standard-8', zones: defaultZones, labels: {}, taints: [],
  };
}

/**
 * The taint managed clusters (GKE, AKS, EKS GPU node groups) put on GPU nodes: only pods that tolerate it land there,
 * which pods requesting nvidia.com/gpu do through the ExtendedResourceToleration admission plugin.
 */
export const gpuTaint: TaintConfig = { key: 'nvidia.com/gpu', value: 'present', effect: 'NoSchedule' };

export function gpuPool(count = 1): NodePoolConfig {
  return {
    name: 'gpu', count, cpu: '64', memory: '512Gi', pods: 110, ephemeralStorage: '1Ti', resources: { 'nvidia.com/gpu': '8' },
    instanceType: 'bonsai-h100-8', zones: ['zone-a'], labels: { ...h100Labels }, taints: [{ ...gpuTaint }],
  };
}

/** The control-plane node, 3 workers and a GPU node; `nodes` sets the worker count (0: no nodes at all). */
export function defaultClusterConfig(nodes = 3): ClusterConfig {
  return {
    region: defaultRegion, nodePools: nodes === 0 ? [] : [workerPool(nodes), gpuPool()], controlPlane: nodes !== 0,
    kubelet: { ...defaultTimings }, addons: new Map(), registry: defaultRegistrySettings(),
  };
}

export function loadClusterConfig(opts: { clusterFile?: string; nodes?: number }): ClusterConfig {
  if (!opts.clusterFile) return defaultClusterConfig(opts.nodes ?? 3);
  if (opts.nodes !== undefined) throw new ClusterConfigError('--nodes and --cluster cannot be used together: set the pool counts in the cluster file');
  let text: string;
  try {
    text = readFileSync(opts.clusterFile, 'utf8');
  } catch (e) {
    throw new ClusterConfigError(`cannot read cluster file ${opts.clusterFile}: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseClusterConfig(text, opts.clusterFile);
}

export function parseClusterConfig(text: string, source = 'cluster file'): ClusterConfig {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (e) {
    throw new ClusterConfigError(`${source}: invalid YAML: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
  }
  const errors: string[] = [];
  const config = readConfig(doc ?? {}, errors);
  if (errors.length) throw new ClusterConfigError(`${source}: ${errors.join('; ')}`);
  return config;
}

const labelValueRe = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const labelKeyRe = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const poolNameRe = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const knownTop = ['apiVersion', 'kind', 'region', 'nodePools', 'kubelet', 'addons', 'registry', 'kubeSystem', 'controlPlane'];
const knownPool = ['name', 'count', 'cpu', 'memory', 'pods', 'ephemeralStorage', 'resources', 'instanceType', 'zones', 'labels', 'taints', 'gpu'];
const kubeletKeys: Record<string, keyof KubeletTimings> = {
  sandboxSeconds: 'sandboxMs', pullSeconds: 'pullMs', startSeconds: 'startMs', defaultRunSeconds: 'defaultRunMs',
};

function unknownKeys(obj: Record<string, unknown>, known: string[], path: string, errors: string[]): void {
  for (const k of Object.keys(obj)) if (!known.includes(k)) errors.push(`${path}${k}: unknown field (expected one of ${known.join(', ')})`);
}

function readConfig(doc: unknown, errors: string[]): ClusterConfig {
  const config: ClusterConfig = { region: defaultRegion, nodePools: [], controlPlane: true, kubelet: { ...defaultTimings }, addons: new Map(), registry: defaultRegistrySettings() };
  if (!isRecord(doc)) {
    errors.push('the document must be a mapping with nodePools (and optional region, kubelet)');
    return config;
  }
  unknownKeys(doc, knownTop, '', errors);
  if (doc.region !== undefined) {
    if (typeof doc.region === 'string' && doc.region !== '' && labelValueRe.test(doc.region) && doc.region.length <= 63) config.region = doc.region;
    else errors.push('region: must be a valid label value');
  }
  if (doc.nodePools !== undefined && !Array.isArray(doc.nodePools)) errors.push('nodePools: must be a list');
  const pools = Array.isArray(doc.nodePools) ? doc.nodePools : [];
  const names = new Set<string>();
  pools.forEach((p: unknown, i: number) => {
    const pool = readPool(p, `nodePools[${i}].`, errors);
    if (!pool) return;
    if (names.has(pool.name)) errors.push(`nodePools[${i}].name: duplicate pool name "${pool.name}"`);
    names.add(pool.name);
    config.nodePools.push(pool);
  });
  if (doc.addons !== undefined) {
    if (!isRecord(doc.addons)) errors.push('addons: must be a mapping of add-on names to their settings');
    else for (const [name, settings] of Object.entries(doc.addons)) config.addons.set(name, settings);
  }
  config.registry = readRegistrySettings(doc.registry, errors);
  for (const key of ['kubeSystem', 'controlPlane'] as const) {
    const v = doc[key];
    if (v === undefined) continue;
    if (typeof v === 'boolean') config[key] = v;
    else errors.push(`${key}: must be true or false`);
  }
  if (doc.kubelet !== undefined) {
    if (!isRecord(doc.kubelet)) errors.push('kubelet: must be a mapping');
    else {
      unknownKeys(doc.kubelet, Object.keys(kubeletKeys), 'kubelet.', errors);
      for (const [key, field] of Object.entries(kubeletKeys)) {
        const v = doc.kubelet[key];
        if (v === undefined) continue;
        if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) errors.push(`kubelet.${key}: must be a number of seconds, 0 or more`);
        else config.kubelet[field] = Math.round(v * 1000);
      }
    }
  }
  return config;
}

function quantity(v: unknown, path: string, errors: string[], fallback: string): string {
  if (v === undefined) return fallback;
  const q = parseQuantity(typeof v === 'number' ? String(v) : v);
  if ('error' in q || q.value < 0) {
    errors.push(`${path}: must be a quantity such as 8, 500m, 32Gi (got ${JSON.stringify(v)})`);
    return fallback;
  }
  return String(v);
}

function count(v: unknown, path: string, errors: string[], fallback: number, min: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
    errors.push(`${path}: must be a whole number, ${min} or more`);
    return fallback;
  }
  return v;
}

function stringMap(v: unknown, path: string, errors: string[], check: (k: string, v: unknown) => string | undefined): Record<string, string> {
  if (v === undefined) return {};
  if (!isRecord(v)) {
    errors.push(`${path}: must be a mapping`);
    return {};
  }
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v)) {
    const problem = check(k, val);
    if (problem) errors.push(`${path}.${k}: ${problem}`);
    else out[k] = String(val);
  }
  return out;
}

/** A pool's `gpu` section: the model's product labels (as GPU feature discovery writes them), the count as capacity. */
function readGpu(g: unknown, path: string, errors: string[], resources: Record<string, string>, labels: Record<string, string>): void {
  if (!isRecord(g)) return void errors.push(`${path}: must be a mapping`);
  unknownKeys(g, ['model', 'count', 'mig'], `${path}.`, errors);
  const product = typeof g.model === 'string' ? gpuModelAliases[g.model] : undefined;
  if (!product) return void errors.push(`${path}.model: required, one of ${Object.keys(gpuModelAliases).join(', ')}`);
  const model = gpuModel(product);
  const n = g.count ?? 8;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 64) return void errors.push(`${path}.count: must be a whole number from 1 to 64`);
  if (g.mig !== undefined && typeof g.mig !== 'boolean') return void errors.push(`${path}.mig: must be true or false`);
  if (g.mig && !model.mig.length) return void errors.push(`${path}.mig: ${g.model} has no MIG`);
  resources['nvidia.com/gpu'] = String(n);
  Object.assign(labels, {
    'nvidia.com/gpu.present': 'true', 'nvidia.com/gpu.product': product, 'nvidia.com/gpu.count': String(n),
    'nvidia.com/gpu.memory': String(Number.parseInt(model.memory, 10) * 1024), 'nvidia.com/gpu.family': model.architecture.split(' ')[0].toLowerCase(),
    'nvidia.com/mig.capable': String(model.mig.length > 0),
  }, g.mig ? { [migLabel]: 'true' } : {});
}

function readPool(p: unknown, path: string, errors: string[]): NodePoolConfig | undefined {
  if (!isRecord(p)) {
    errors.push(`${path.slice(0, -1)}: must be a mapping`);
    return undefined;
  }
  unknownKeys(p, knownPool, path, errors);
  if (typeof p.name !== 'string' || !poolNameRe.test(p.name) || p.name.length > 40) {
    errors.push(`${path}name: required, lower case letters, digits and '-' (at most 40 characters)`);
    return undefined;
  }
  const base = workerPool(1);
  const labels = stringMap(p.labels, `${path}labels`, errors, (k, v) => {
    if (!labelKeyRe.test(k) || k.length > 316) return 'not a valid label key';
    const s = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
    return typeof s === 'string' && labelValueRe.test(s) && s.length <= 63 ? undefined : 'not a valid label value';
  });
  const resources = stringMap(p.resources, `${path}resources`, errors, (k, v) => {
    if (!labelKeyRe.test(k) || !k.includes('/')) return 'extended resource names are domain-qualified, such as nvidia.com/gpu';
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? undefined : 'must be a whole number, 0 or more';
  });
  let zones = base.zones;
  if (p.zones !== undefined) {
    if (!Array.isArray(p.zones) || p.zones.length === 0 || !p.zones.every((z) => typeof z === 'string' && z !== '' && labelValueRe.test(z))) {
      errors.push(`${path}zones: must be a non-empty list of zone names (label values)`);
    } else zones = p.zones as string[];
  }
  const taints: TaintConfig[] = [];
  if (p.taints !== undefined) {
    if (!Array.isArray(p.taints)) errors.push(`${path}taints: must be a list`);
    else p.taints.forEach((t: unknown, i: number) => {
      const tp = `${path}taints[${i}]`;
      if (!isRecord(t) || typeof t.key !== 'string' || !labelKeyRe.test(t.key)) return void errors.push(`${tp}.key: required, a valid label key`);
      if (t.value !== undefined && (typeof t.value !== 'string' || !labelValueRe.test(t.value))) return void errors.push(`${tp}.value: must be a valid label value`);
      if (t.effect !== 'NoSchedule' && t.effect !== 'PreferNoSchedule' && t.effect !== 'NoExecute') return void errors.push(`${tp}.effect: must be NoSchedule, PreferNoSchedule or NoExecute`);
      taints.push({ key: t.key, ...(t.value !== undefined ? { value: t.value as string } : {}), effect: t.effect });
    });
  }
  let instanceType = `bonsai-${p.name}`;
  if (p.instanceType !== undefined) {
    if (typeof p.instanceType === 'string' && labelValueRe.test(p.instanceType) && p.instanceType !== '') instanceType = p.instanceType;
    else errors.push(`${path}instanceType: must be a valid label value`);
  }
  if (p.gpu !== undefined) readGpu(p.gpu, `${path}gpu`, errors, resources, labels);
  const gpus = resources['nvidia.com/gpu'];
  if (gpus !== undefined && labels['nvidia.com/gpu.present'] === undefined) {
    labels['nvidia.com/gpu.present'] = 'true';
    labels['nvidia.com/gpu.count'] ??= gpus;
  }
  return {
    name: p.name,
    count: count(p.count, `${path}count`, errors, 1, 0),
    cpu: quantity(p.cpu, `${path}cpu`, errors, base.cpu),
    memory: quantity(p.memory, `${path}memory`, errors, base.memory),
    pods: count(p.pods, `${path}pods`, errors, base.pods, 1),
    ephemeralStorage: quantity(p.ephemeralStorage, `${path}ephemeralStorage`, errors, base.ephemeralStorage),
    resources, instanceType, zones, labels, taints,
  };
}
