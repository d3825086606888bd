import { test } from 'node:test';
import assert from 'node:assert/strict';
import { humanDuration, shortHumanDuration } from '../../src/util/duration.js';
import { tablePrinterOf } from '../../src/registry/tables/def-printer.js';
import { builtinDefOf } from '../helpers/builtin-defs.js';
import type { KObject } from '../../src/machinery/types.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

const now = new Date('2024-01-01T12:00:00Z');
const ago = (ms: number): string => new Date(now.getTime() - ms).toISOString().replace(/\.\d+Z$/, 'Z');
const created = ago(10 * M);

function obj(fields: Record<string, unknown>, metadata: Record<string, unknown> = {}): KObject {
  return { metadata: { name: 'x', creationTimestamp: created, ...metadata }, ...fields } as KObject;
}

/** The printer of the def serving `group`/`resource` (the default for one not served). */
function tablePrinterFor(group: string, resource: string) {
  return tablePrinterOf(builtinDefOf(group, resource) ?? {});
}

function row(group: string, resource: string, o: KObject): unknown[] {
  return tablePrinterFor(group, resource).cells(o, now);
}

test('humanDuration follows upstream boundaries', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [-1 * S, '0s'],
    [-1999, '0s'],
    [-2 * S, '<invalid>'],
    [45 * S, '45s'],
    [119 * S, '119s'],
    [120 * S, '2m'],
    [200 * S, '3m20s'],
    [599 * S, '9m59s'],
    [10 * M, '10m'],
    [95 * M, '95m'],
    [179 * M + 59 * S, '179m'],
    [3 * H, '3h'],
    [5 * H + 12 * M, '5h12m'],
    [7 * H + 59 * M, '7h59m'],
    [8 * H + 30 * M, '8h'],
    [30 * H, '30h'],
    [47 * H + 59 * M, '47h'],
    [48 * H, '2d'],
    [3 * D + 4 * H, '3d4h'],
    [7 * D + 23 * H, '7d23h'],
    [8 * D + 5 * H, '8d'],
    [120 * D, '120d'],
    [729 * D, '729d'],
    [730 * D, '2y'],
    [740 * D, '2y10d'],
    [8 * 365 * D + 20 * D, '8y'],
  ];
  for (const [ms, want] of cases) assert.equal(humanDuration(ms), want, `humanDuration(${ms})`);
});

test('shortHumanDuration uses a single unit', () => {
  const cases: [number, string][] = [
    [-5 * S, '<invalid>'],
    [-1 * S, '0s'],
    [59 * S, '59s'],
    [60 * S, '1m'],
    [59 * M, '59m'],
    [23 * H, '23h'],
    [24 * H, '1d'],
    [364 * D, '364d'],
    [365 * D, '1y'],
  ];
  for (const [ms, want] of cases) assert.equal(shortHumanDuration(ms), want, `shortHumanDuration(${ms})`);
});

test('pod columns match upstream', () => {
  const cols = tablePrinterFor('', 'pods').columns;
  assert.deepEqual(
    cols.map((c) => [c.name, c.type, c.format, c.priority]),
    [
      ['Name', 'string', 'name', 0],
      ['Ready', 'string', '', 0],
      ['Status', 'string', '', 0],
      ['Restarts', 'string', '', 0],
      ['Age', 'string', '', 0],
      ['IP', 'string', '', 1],
      ['Node', 'string', '', 1],
      ['Nominated Node', 'string', '', 1],
      ['Readiness Gates', 'string', '', 1],
    ],
  );
  assert.match(cols[0].description, /^Name must be unique within a namespace/);
  assert.match(cols[4].description, /^CreationTimestamp is a timestamp/);
});

const container = { name: 'web', image: 'nginx' };

function pod(status: Record<string, unknown>, spec: Record<string, unknown> = {}, metadata = {}): KObject {
  return obj({ spec: { containers: [container], ...spec }, status }, { name: 'web-1', ...metadata });
}

const podStatus = (p: KObject): unknown => row('', 'pods', p)[2];

test('pod status: Running, Pending, ContainerCreating', () => {
  const running = pod({
    phase: 'Running',
    podIP: '10.1.0.5',
    containerStatuses: [{ name: 'web', ready: true, restartCount: 0, state: { running: {} } }],
  }, { nodeName: 'node-1' });
  assert.deepEqual(row('', 'pods', running), ['web-1', '1/1', 'Running', '0', '10m', '10.1.0.5', 'node-1', '<none>', '<none>']);
  assert.deepEqual(row('', 'pods', pod({ phase: 'Pending' })).slice(0, 5), ['web-1', '0/1', 'Pending', '0', '10m']);
  const creating = pod({
    phase: 'Pending',
    containerStatuses: [{ name: 'web', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } }],
  });
  assert.equal(podStatus(creating), 'ContainerCreating');
});

test('pod status: CrashLoopBackOff with restarts and last restart age', () => {
  const p = pod({
    phase: 'Running',
    containerStatuses: [
      {
        name: 'web',
        ready: false,
        restartCount: 3,
        state: { waiting: { reason: 'CrashLoopBackOff' } },
        lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(2 * M) } },
      },
    ],
  });
  const cells = row('', 'pods', p);
  assert.equal(cells[1], '0/1');
  assert.equal(cells[2], 'CrashLoopBackOff');
  assert.equal(cells[3], '3 (2m ago)');
});

test('pod status: init containers', () => {
  const spec = { initContainers: [{ name: 'init', image: 'busybox' }] };
  const running = pod({ phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { running: {} } }] }, spec);
  assert.equal(podStatus(running), 'Init:0/1');
  const initializing = pod(
    { phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'PodInitializing' } } }] },
    spec,
  );
  assert.equal(podStatus(initializing), 'Init:0/1');
  const pull = pod(
    { phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { waiting: { reason: 'ErrImagePull' } } }] },
    spec,
  );
  assert.equal(podStatus(pull), 'Init:ErrImagePull');
  const failed = pod(
    { phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { terminated: { exitCode: 2 } } }] },
    spec,
  );
  assert.equal(podStatus(failed), 'Init:ExitCode:2');
});

test('pod status: restartable init containers (sidecars) count toward READY', () => {
  const p = pod(
    {
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }],
      initContainerStatuses: [{ name: 'side', ready: true, started: true, restartCount: 1, state: { running: {} } }],
      containerStatuses: [{ name: 'web', ready: true, restartCount: 0, state: { running: {} } }],
    },
    { initContainers: [{ name: 'side', image: 'envoy', restartPolicy: 'Always' }] },
  );
  assert.deepEqual(row('', 'pods', p).slice(1, 4), ['2/2', 'Running', '1']);
});

test('pod status: Completed, Terminating, NodeLost, SchedulingGated, readiness gates', () => {
  const done = pod({
    phase: 'Succeeded',
    containerStatuses: [{ name: 'web', ready: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
  });
  assert.deepEqual(row('', 'pods', done).slice(1, 3), ['0/1', 'Completed']);

  const deleting = { deletionTimestamp: ago(5 * S) };
  const terminating = pod(
    { phase: 'Running', containerStatuses: [{ name: 'web', ready: true, state: { running: {} } }] },
    {},
    deleting,
  );
  assert.equal(podStatus(terminating), 'Terminating');
  assert.equal(podStatus(pod({ phase: 'Succeeded' }, {}, deleting)), 'Succeeded');
  assert.equal(podStatus(pod({ phase: 'Running', reason: 'NodeLost' }, {}, deleting)), 'Unknown');

  const gated = pod({ phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] });
  assert.equal(podStatus(gated), 'SchedulingGated');

  const gates = pod(
    { phase: 'Running', conditions: [{ type: 'example.com/a', status: 'True' }, { type: 'example.com/b', status: 'False' }] },
    { readinessGates: [{ conditionType: 'example.com/a' }, { conditionType: 'example.com/b' }] },
  );
  assert.equal(row('', 'pods', gates)[8], '1/2');
});

test('odd or partial objects never throw', () => {
  for (const [g, r] of [['', 'pods'], ['', 'services'], ['', 'nodes'], ['apps', 'deployments'], ['batch', 'jobs'],
    ['batch', 'cronjobs'], ['', 'events'], ['events.k8s.io', 'events'], ['autoscaling', 'horizontalpodautoscalers'],
    ['', 'endpoints'], ['networking.k8s.io', 'ingresses'], ['', 'resourcequotas'], ['x.example.com', 'widgets']]) {
    const printer = tablePrinterFor(g, r);
    for (const o of [{ metadata: {} }, { metadata: { name: 'n' }, spec: 'garbage', status: 5 }, { metadata: null }]) {
      const cells = printer.cells(o as KObject, now);
      assert.equal(cells.length, printer.columns.length, `${g}/${r}`);
    }
  }
  assert.deepEqual(row('', 'pods', { metadata: {} } as KObject).slice(0, 5), ['', '0/0', '', '0', '<unknown>']);
});

test('deployment row and selectors', () => {
  const d = obj({
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.25' }, { name: 'log', image: 'busybox' }] } },
    },
    status: { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
  }, { name: 'web' });
  assert.deepEqual(row('apps', 'deployments', d), ['web', '2/3', 3, 2, '10m', 'nginx,log', 'nginx:1.25,busybox', 'app=web']);
  assert.deepEqual(
    tablePrinterFor('apps', 'deployments').columns.map((c) => `${c.name}:${c.priority}`),
    ['Name:0', 'Ready:0', 'Up-to-date:0', 'Available:0', 'Age:0', 'Containers:1', 'Images:1', 'Selector:1'],
  );
  const rs = obj({
    spec: {
      replicas: 1,
      selector: {
        matchLabels: { tier: 'fe' },
        matchExpressions: [
          { key: 'env', operator: 'In', values: ['prod', 'dev'] },
          { key: 'canary', operator: 'DoesNotExist' },
        ],
      },
    },
  });
  assert.equal(row('apps', 'replicasets', rs)[7], '!canary,env in (dev,prod),tier=fe');
  assert.equal(row('apps', 'replicasets', obj({ spec: {} }))[7], '<none>');
});

test('service rows', () => {
  const svc = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): unknown[] =>
    row('', 'services', obj({ spec, status }, { name: 'web' }));
  assert.deepEqual(svc({ type: 'ClusterIP', clusterIP: '10.0.0.1', ports: [{ port: 80, protocol: 'TCP' }], selector: { app: 'web' } }),
    ['web', 'ClusterIP', '10.0.0.1', '<none>', '80/TCP', '10m', 'app=web']);
  const np = svc({ type: 'NodePort', clusterIP: '10.0.0.2', ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }] });
  assert.deepEqual(np.slice(3, 5), ['<none>', '80:30080/TCP,53/UDP']);
  assert.equal(np[6], '<none>');
  assert.equal(svc({ type: 'LoadBalancer', clusterIP: '10.0.0.3', ports: [] })[3], '<pending>');
  assert.equal(svc({ type: 'LoadBalancer', clusterIP: '10.0.0.3' }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } })[3], '1.2.3.4');
  assert.deepEqual(svc({ type: 'ExternalName', externalName: 'example.com' }).slice(2, 5), ['<none>', 'example.com', '<none>']);
  assert.equal(svc({ type: 'ClusterIP', clusterIP: 'None' })[2], 'None');
});

test('node rows', () => {
  const node = obj({
    spec: { unschedulable: true },
    status: {
      conditions: [{ type: 'Ready', status: 'True' }],
      nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Ubuntu', kernelVersion: '6.1', containerRuntimeVersion: 'containerd://1.7' },
      addresses: [{ type: 'InternalIP', address: '192.168.1.10' }],
    },
  }, { name: 'n1', labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'worker' } });
  assert.deepEqual(row('', 'nodes', node),
    ['n1', 'Ready,SchedulingDisabled', 'control-plane,worker', '10m', 'v1.32.0', '192.168.1.10', '<none>', 'Ubuntu', '6.1', 'containerd://1.7']);
  const bare = row('', 'nodes', obj({ status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } }));
  assert.deepEqual(bare.slice(1, 3), ['NotReady', '<none>']);
  assert.equal(row('', 'nodes', obj({}))[1], 'Unknown');
  assert.equal(row('', 'nodes', obj({}))[7], '<unknown>');
});

test('job rows', () => {
  const template = { spec: { containers: [{ name: 'pi', image: 'perl' }] } };
  const complete = obj({
    spec: { completions: 1, template, selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } } },
    status: { succeeded: 1, startTime: ago(5 * M), completionTime: ago(5 * M - 45 * S), conditions: [{ type: 'Complete', status: 'True' }] },
  }, { name: 'pi' });
  assert.deepEqual(row('batch', 'jobs', complete),
    ['pi', 'Complete', '1/1', '45s', '10m', 'pi', 'perl', 'batch.kubernetes.io/controller-uid=u1']);
  const running = obj({ spec: { parallelism: 2, template }, status: { startTime: ago(200 * S) } });
  assert.deepEqual(row('batch', 'jobs', running).slice(1, 4), ['Running', '0/1 of 2', '3m20s']);
  const suspended = obj({ spec: { completions: 3 }, status: { conditions: [{ type: 'Suspended', status: 'True' }] } });
  assert.deepEqual(row('batch', 'jobs', suspended).slice(1, 4), ['Suspended', '0/3', '']);
  const failing = obj({ spec: {}, status: { conditions: [{ type: 'FailureTarget', status: 'True' }] } }, { deletionTimestamp: ago(1 * S) });
  assert.equal(row('batch', 'jobs', failing)[1], 'Terminating');
  const failed = obj({ spec: {}, status: { conditions: [{ type: 'Failed', status: 'True' }] } }, { deletionTimestamp: ago(1 * S) });
  assert.equal(row('batch', 'jobs', failed)[1], 'Failed');
});

test('cronjob rows', () => {
  const cj = obj({
    spec: { schedule: '*/5 * * * *', suspend: false, jobTemplate: { spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }] } } } } },
    status: { active: [{ name: 'j1' }], lastScheduleTime: ago(3 * M) },
  }, { name: 'tick' });
  assert.deepEqual(row('batch', 'cronjobs', cj), ['tick', '*/5 * * * *', '<none>', 'False', 1, '3m', '10m', 'c', 'busybox', '<none>']);
  const fresh = obj({ spec: { schedule: '@daily', timeZone: 'Etc/UTC' } });
  assert.deepEqual(row('batch', 'cronjobs', fresh).slice(2, 6), ['Etc/UTC', '<unset>', 0, '<none>']);
});

test('event rows (core/v1 and events.k8s.io/v1)', () => {
  const cols = tablePrinterFor('', 'events').columns;
  assert.deepEqual(cols.map((c) => `${c.name}:${c.priority}`), [
    'Last Seen:0', 'Type:0', 'Reason:0', 'Object:0', 'Subobject:1', 'Source:1', 'Message:0', 'First Seen:1', 'Count:1', 'Name:1',
  ]);
  assert.equal(cols[9].format, 'name');
  const core = obj({
    type: 'Normal', reason: 'Pulled', message: 'Pulled image\n', count: 3,
    firstTimestamp: ago(5 * M), lastTimestamp: ago(30 * S),
    involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{web}' },
    source: { component: 'kubelet', host: 'node-1' },
  }, { name: 'web-1.17a' });
  assert.deepEqual(row('', 'events', core),
    ['30s', 'Normal', 'Pulled', 'pod/web-1', 'spec.containers{web}', 'kubelet, node-1', 'Pulled image', '5m', 3, 'web-1.17a']);
  const v1 = obj({
    apiVersion: 'events.k8s.io/v1', eventTime: ago(90 * S), type: 'Warning', reason: 'Failed', note: ' boom ',
    regarding: { kind: 'Deployment', name: 'web' }, reportingController: 'deployment-controller',
  }, { name: 'web.1' });
  assert.deepEqual(row('events.k8s.io', 'events', v1),
    ['90s', 'Warning', 'Failed', 'deployment/web', '', 'deployment-controller', 'boom', '90s', 1, 'web.1']);
  const series = obj({
    apiVersion: 'events.k8s.io/v1', eventTime: ago(1 * H), series: { count: 7, lastObservedTime: ago(10 * S) },
    regarding: { kind: 'Node' }, reportingController: 'kubelet', reportingInstance: 'n1',
  });
  assert.deepEqual(row('events.k8s.io', 'events', series).slice(0, 9), ['10s', '', '', 'node', '', 'kubelet, n1', '', '60m', 7]);
});

test('horizontalpodautoscaler rows', () => {
  const hpa = (spec: Record<string, unknown>, status: Record<string, unknown> = {}): unknown[] =>
    row('autoscaling', 'horizontalpodautoscalers', obj({ spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 5, ...spec }, status }, { name: 'web' }));
  const cpu80 = { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } };
  assert.deepEqual(hpa({ minReplicas: 1, metrics: [cpu80] }), ['web', 'Deployment/web', 'cpu: <unknown>/80%', '1', 5, 0, '10m']);
  assert.equal(hpa({ metrics: [cpu80] }, { currentReplicas: 2, currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 35 } } }] })[2], 'cpu: 35%/80%');
  const mem = { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } } };
  const pods = { type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1k' } } };
  assert.equal(hpa({ metrics: [cpu80, mem, pods] })[2], 'cpu: <unknown>/80%, memory: <unknown>/500Mi + 1 more...');
  assert.equal(hpa({})[2], 'cpu: <unknown>/80%');
  const v1 = obj({ apiVersion: 'autoscaling/v1', spec: { scaleTargetRef: { kind: 'Deployment', name: 'api' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 }, status: { currentReplicas: 1, currentCPUUtilizationPercentage: 20 } });
  assert.deepEqual(row('autoscaling', 'horizontalpodautoscalers', v1).slice(1, 6), ['Deployment/api', 'cpu: 20%/50%', '1', 3, 1]);
});

test('other printers: storageclass default, configmap, secret, rolebinding, pdb, endpoints', () => {
  const sc = obj({ provisioner: 'rancher.io/local-path' }, { name: 'standard', annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } });
  assert.deepEqual(row('storage.k8s.io', 'storageclasses', sc), ['standard (default)', 'rancher.io/local-path', 'Delete', 'Immediate', false, '10m']);
  assert.deepEqual(row('', 'configmaps', obj({ data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } })), ['x', 3, '10m']);
  assert.deepEqual(row('', 'secrets', obj({ type: 'Opaque', data: { a: 'MQ==' } })), ['x', 'Opaque', 1, '10m']);
  const rb = obj({ roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'User', name: 'bob' }, { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' }] });
  assert.deepEqual(row('rbac.authorization.k8s.io', 'rolebindings', rb), ['x', 'ClusterRole/view', '10m', 'alice, bob', '', 'ns/sa']);
  assert.deepEqual(row('policy', 'poddisruptionbudgets', obj({ spec: { minAvailable: 1 }, status: { disruptionsAllowed: 0 } })), ['x', '1', 'N/A', 0, '10m']);
  const ep = obj({ subsets: [{ addresses: [{ ip: '10.0.0.1' }, { ip: '10.0.0.2' }], ports: [{ port: 80 }, { port: 443 }] }] });
  assert.deepEqual(row('', 'endpoints', ep), ['x', '10.0.0.1:80,10.0.0.2:80,10.0.0.1:443 + 1 more...', '10m']);
  assert.equal(row('', 'endpoints', obj({}))[1], '<none>');
  const rq = obj({ status: { hard: { 'limits.cpu': '2', 'requests.cpu': '1', pods: '10' }, used: { 'requests.cpu': '500m', pods: '3' } } });
  assert.deepEqual(row('', 'resourcequotas', rq), ['x', 'pods: 3/10, requests.cpu: 500m/1', 'limits.cpu: 0/2', '10m']);
});

test('default printer: Name and Created At', () => {
  const printer = tablePrinterFor('', 'limitranges');
  assert.deepEqual(printer.columns.map((c) => [c.name, c.type, c.format]), [['Name', 'string', 'name'], ['Created At', 'date', '']]);
  assert.deepEqual(printer.cells(obj({}, { name: 'lr' }), now), ['lr', '2024-01-01T11:50:00Z']);
  assert.deepEqual(tablePrinterFor('rbac.authorization.k8s.io', 'roles').cells(obj({}, { creationTimestamp: undefined }), now), ['x', '0001-01-01T00:00:00Z']);
  assert.equal(tablePrinterFor('example.com', 'widgets').columns.length, 2);
});
