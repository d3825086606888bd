// ExtendedResourceToleration: pods requesting extended resources (in requests, or in limits alone) get an
// `<resource>:Exists:NoSchedule` toleration once, sorted by name; native resources and other pods get none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { isExtendedResourceName } from '../../src/admission/builtin/extended-resource-toleration.js';
import { builtinAdmission } from '../../src/admission/builtin/index.js';

type Json = Record<string, any>;

function setup() {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ManualClock(Date.UTC(2026, 0, 1)), createLogger('silent'));
  bootstrap(reg);
  return { client: clientFor(reg), close: () => store.close() };
}

const pod = (name: string, spec: Json): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { containers: [{ name: 'c', image: 'i' }], ...spec } });
const extra = (p: KObject) => ((p.spec as Json).tolerations as Json[]).filter((t) => !t.key.startsWith('node.kubernetes.io/')).map((t) => `${t.key}:${t.operator}:${t.value ?? ''}:${t.effect}`);

test('extended resource names: domain-qualified, outside kubernetes.io, not requests.-prefixed', async () => {
  for (const n of ['nvidia.com/gpu', 'example.com/foo', 'amd.com/gpu']) assert.ok(isExtendedResourceName(n), n);
  for (const n of ['cpu', 'memory', 'hugepages-2Mi', 'kubernetes.io/foo', 'requests.example.com/x', 'example.com/bad name', 'node.kubernetes.io/x']) assert.ok(!isExtendedResourceName(n), n);
});

test('runs after DefaultTolerationSeconds and before DefaultStorageClass, as in kube-apiserver', async () => {
  const names = builtinAdmission.map((p) => p.name);
  assert.ok(names.indexOf('ExtendedResourceToleration') === names.indexOf('DefaultTolerationSeconds') + 1, names.join());
  assert.ok(names.indexOf('ExtendedResourceToleration') < names.indexOf('DefaultStorageClass'), names.join());
});

test('pods requesting extended resources tolerate their NoSchedule taints', async () => {
  const { client, close } = setup();
  try {
    const gpu = await client.create('v1/pods', 'default', pod('gpu', { containers: [{ name: 'c', image: 'i', resources: { limits: { 'nvidia.com/gpu': '1' } } }] }));
    assert.deepEqual(extra(gpu), ['nvidia.com/gpu:Exists::NoSchedule']);
    const several = await client.create('v1/pods', 'default', pod('several', {
      containers: [{ name: 'c', image: 'i', resources: { requests: { 'nvidia.com/gpu': '1', cpu: '1' }, limits: { 'nvidia.com/gpu': '1' } } }],
      initContainers: [{ name: 'init', image: 'i', resources: { requests: { 'example.com/fpga': '1' }, limits: { 'example.com/fpga': '1' } } }],
      tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }, { key: 'other', operator: 'Equal', value: 'x', effect: 'NoExecute' }],
    }));
    assert.deepEqual(extra(several), ['nvidia.com/gpu:Exists::NoSchedule', 'other:Equal:x:NoExecute', 'example.com/fpga:Exists::NoSchedule']);
    const plain = await client.create('v1/pods', 'default', pod('plain', { containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1', memory: '1Gi' } } }] }));
    assert.deepEqual(extra(plain), []);
    // An update keeps the toleration (and adds none twice).
    const updated = await client.guaranteedUpdate('v1/pods', 'default', 'gpu', (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { a: 'b' } } }));
    assert.deepEqual(extra(updated), ['nvidia.com/gpu:Exists::NoSchedule']);
  } finally {
    close();
  }
});
