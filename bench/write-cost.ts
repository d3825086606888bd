// In-process cost of one registry write: starts Bonsai in memory (no nodes, no add-ons, no controllers) and times N
// pod creates, bindings, pod status writes, Event creates, node creates and node status writes through the
// in-process client, as the components make them. Reports CPU µs per write (process CPU, group commits included).
//
//   node dist/bench/write-cost.js [N] [rounds] [--bare]   (defaults 2000 and 5; WRITE_COST_CONTROLLERS=1 runs the controllers)
// --bare: only the registry on a SQLite store (as the unit tests build it): no informers, scheduler or kubelets see
// the writes, so the figures are the pipeline's and storage's own.
import { performance } from 'node:perf_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import { startBonsai } from '../src/index.js';
import { clientFor, type Client } from '../src/client/client.js';
import { EventRecorder } from '../src/client/event-recorder.js';
import { controllerIdentity, nodeIdentity, schedulerIdentity } from '../src/auth/identities.js';
import type { KObject } from '../src/machinery/types.js';
import { SqliteStore } from '../src/storage/sqlite-store.js';
import { Registry } from '../src/registry/registry.js';
import { allResources } from '../src/registry/resources/index.js';
import { bootstrap } from '../src/registry/bootstrap.js';
import { ScaledClock } from '../src/util/clock.js';
import { createLogger } from '../src/util/logger.js';

const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const bare = process.argv.includes('--bare');
const n = Number(positional[0] ?? 2000);
const rounds = Number(positional[1] ?? 7);
/** The first rounds run while the JIT warms up: left out of the figures when there are enough rounds. */
const warmup = rounds > 4 ? 2 : 0;
/** Writes between yields to the event loop (the group commit flushes there), as a busy component writes. */
const chunk = 100;

function pod(name: string): KObject {
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace: 'default', labels: { app: 'web', 'pod-template-hash': '5d4f8c7b9' },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d4f8c7b9', uid: '0a1b2c3d-1111-2222-3333-444455556666', controller: true, blockOwnerDeletion: true }],
    },
    spec: {
      containers: [{
        name: 'app', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      }],
    },
  };
}

function podStatus(name: string, now: string): Record<string, unknown> {
  return {
    phase: 'Running', hostIP: '10.0.0.1', hostIPs: [{ ip: '10.0.0.1' }], podIP: '10.244.0.5', podIPs: [{ ip: '10.244.0.5' }], startTime: now, qosClass: 'Burstable',
    conditions: [
      { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: now },
      { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now },
    ],
    containerStatuses: [{
      name: 'app', image: 'docker.io/library/nginx:1.27', imageID: 'docker.io/library/nginx@sha256:0123', containerID: `containerd://${name}`,
      ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } }, lastState: {},
    }],
  };
}

function node(name: string): KObject {
  return {
    apiVersion: 'v1', kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'zone-a' } },
    spec: {},
  };
}

function nodeStatus(now: string): Record<string, unknown> {
  const cond = (type: string, status: string, reason: string) => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message: reason });
  return {
    capacity: { cpu: '32', memory: '128Gi', pods: '110', 'ephemeral-storage': '100Gi' },
    allocatable: { cpu: '32', memory: '127Gi', pods: '110', 'ephemeral-storage': '95Gi' },
    conditions: [cond('MemoryPressure', 'False', 'KubeletHasSufficientMemory'), cond('DiskPressure', 'False', 'KubeletHasNoDiskPressure'),
      cond('PIDPressure', 'False', 'KubeletHasSufficientPID'), cond('Ready', 'True', 'KubeletReady')],
    addresses: [{ type: 'InternalIP', address: '10.0.0.1' }, { type: 'Hostname', address: 'n' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: { machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.1', osImage: 'Debian', containerRuntimeVersion: 'containerd://1.7', kubeletVersion: 'v1.35.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64' },
  };
}

/** CPU µs per write of `count` writes made by `write(i)`, yielding to the event loop every `chunk` writes. */
async function measure(count: number, write: (i: number) => void): Promise<{ cpuUs: number; wallUs: number }> {
  await tick();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < count; i++) {
    write(i);
    if (i % chunk === chunk - 1) await tick();
  }
  await tick();
  await tick();
  const c = process.cpuUsage(c0);
  return { cpuUs: (c.user + c.system) / count, wallUs: ((performance.now() - t0) * 1000) / count };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The registry alone on an in-memory SQLite store. */
function bareRegistry(): { registry: Registry; close: () => Promise<void> } {
  const store = new SqliteStore({ path: ':memory:' });
  const registry = new Registry(store, allResources, new ScaledClock(), createLogger('silent'));
  bootstrap(registry);
  return { registry, close: async () => store.close() };
}

async function main(): Promise<void> {
  const b = bare ? bareRegistry() : await startBonsai({
    port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [], ui: false,
    controllers: process.env.WRITE_COST_CONTROLLERS ? ['*'] : [], eventTtlMs: 0,
  });
  const as = (id: { user: Parameters<Registry['as']>[0]; component?: Parameters<Registry['as']>[1] }): Client => clientFor(b.registry.as(id.user, id.component));
  const rs = as(controllerIdentity('replicaset'));
  const sched = as(schedulerIdentity);
  const kubelet = as(nodeIdentity('bench-node'));
  const recorder = new EventRecorder(kubelet, { component: 'kubelet', host: 'bench-node' });
  // The scheduler runs whatever --controllers says: hold it back so that only the writes measured here happen.
  rs.create('v1/configmaps', 'kube-system', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bonsai-scheduler' }, data: { paused: 'true' } });
  const results = new Map<string, number[]>();
  let round = 0;
  const record = (k: string, v: number) => {
    if (round >= warmup) results.set(k, [...(results.get(k) ?? []), v]);
  };
  for (let r = 0; r < rounds; r++, round++) {
    const names = Array.from({ length: n }, (_, i) => `p${r}-${i}`);
    const nodes = Array.from({ length: Math.max(1, n / 4) }, (_, i) => `n${r}-${i}`);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    record('pod create', (await measure(n, (i) => rs.create('v1/pods', 'default', pod(names[i]), { owned: true }))).cpuUs);
    record('pod binding', (await measure(n, (i) => sched.services.bindPod('default', names[i], 'bench-node'))).cpuUs);
    const podDef = kubelet.resource('v1/pods')!;
    record('pod status', (await measure(n, (i) => {
      const status = podStatus(names[i], now);
      kubelet.guaranteedUpdate(podDef, 'default', names[i], (cur) => ({ ...cur, status }), { subresource: 'status', pure: true, audit: { verb: 'patch', subresource: 'status' } });
    })).cpuUs);
    const pods = names.map((x) => kubelet.get('v1/pods', 'default', x)!);
    record('event create', (await measure(n, (i) => recorder.event(pods[i], 'Normal', 'Pulled', `Container image "nginx:1.27" already present on machine`))).cpuUs);
    record('node create', (await measure(nodes.length, (i) => kubelet.create('v1/nodes', '', node(nodes[i]), { owned: true }))).cpuUs);
    const nodeDef = kubelet.resource('v1/nodes')!;
    record('node status', (await measure(nodes.length, (i) => {
      const status = nodeStatus(now);
      kubelet.guaranteedUpdate(nodeDef, '', nodes[i], (cur) => ({ ...cur, status }), { subresource: 'status', pure: true });
    })).cpuUs);
  }
  console.log(`${bare ? 'registry and store only' : 'full server in process'}, ${n} writes a round, ${rounds - warmup} rounds measured after ${warmup} warm-up`);
  // Under load from other processes the minimum is the steadiest figure; the median is shown beside it.
  for (const [k, v] of results) console.log(`${k.padEnd(14)} min ${Math.min(...v).toFixed(1).padStart(7)}  median ${median(v).toFixed(1).padStart(7)} µs CPU/write  (rounds: ${v.map((x) => x.toFixed(0)).join(' ')})`);
  await b.close();
}

await main();
