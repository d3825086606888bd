// The field sets of Update operations: what a create or update changed (field-changes.ts) and how the entries of
// metadata.managedFields follow (update-managers.ts), as upstream's field manager records them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareObjects, createdFieldsV1, emptyObjectLike, maxChangeDepth } from '../../src/api/patch/field-changes.js';
import { rootNode } from '../../src/api/patch/schema.js';
import { managerFromUserAgent, recordUpdate, type ManagedFieldsEntry } from '../../src/api/patch/update-managers.js';

type Json = Record<string, any>;
const DEPLOY = rootNode({ group: 'apps', version: 'v1', kind: 'Deployment' });
const CM = rootNode({ group: '', version: 'v1', kind: 'ConfigMap' });

function deployment(image = 'nginx'): Json {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'd', namespace: 'default', uid: 'u', labels: { app: 'd' } },
    spec: {
      replicas: 1, selector: { matchLabels: { app: 'd' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%' } },
      template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'app', image, resources: {} }], restartPolicy: 'Always' } },
    },
  };
}

const writer = (manager: string, time = '2026-01-01T00:00:00Z') => ({ manager, apiVersion: 'apps/v1', time });
const created = (obj: Json, manager = 'kubectl-create') => recordUpdate([], compareObjects(emptyObjectLike(obj), obj, DEPLOY, { skipStatus: true }), writer(manager));

test('a create gives its writer every field it set, containers of the empty object without their own member', () => {
  const [entry] = created(deployment());
  assert.deepEqual(entry.fieldsV1, {
    'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:strategy': { 'f:rollingUpdate': { '.': {}, 'f:maxSurge': {} }, 'f:type': {} },
      'f:template': {
        'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:resources': {} } }, 'f:restartPolicy': {} },
      },
    },
  });
  assert.equal(entry.operation, 'Update');
  assert.equal(entry.time, '2026-01-01T00:00:00Z');
  // Key order as upstream encodes an entry.
  assert.deepEqual(Object.keys(entry), ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
});

test('the one-walk encoding of a create equals the comparison against the empty object', () => {
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' }, annotations: {} }, spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 81 }], args: ['x'] }], volumes: [], securityContext: {} }, status: { phase: 'Pending' } };
  const POD = rootNode({ group: '', version: 'v1', kind: 'Pod' });
  for (const [obj, root] of [[deployment(), DEPLOY], [pod, POD]] as const) {
    assert.deepEqual(createdFieldsV1(obj, root, true, true), compareObjects(emptyObjectLike(obj), obj, root, { skipStatus: true }).ownedFieldsV1());
    assert.deepEqual(JSON.stringify(createdFieldsV1(obj, root, true, true)), JSON.stringify(compareObjects(emptyObjectLike(obj), obj, root, { skipStatus: true }).ownedFieldsV1()));
  }
  const custom = { apiVersion: 'x/v1', kind: 'T', metadata: { name: 't', labels: { x: 'y' } }, spec: { a: [1, 2], m: { k: {} } }, status: { s: 1 } };
  assert.deepEqual(createdFieldsV1(custom, undefined, false, false), compareObjects(undefined, custom, undefined).ownedFieldsV1());
  assert.equal(createdFieldsV1({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, CM, true, false), undefined);
});

test('a custom kind is compared against nothing: its spec is a member too', () => {
  const obj = { apiVersion: 'x/v1', kind: 'T', metadata: { name: 't' }, spec: { a: 1 } };
  const [entry] = recordUpdate([], compareObjects(undefined, obj, undefined), writer('c'));
  assert.deepEqual(entry.fieldsV1, { 'f:spec': { '.': {}, 'f:a': {} } });
});

test('an update takes the changed fields from their manager, and a write that changes nothing keeps the entries', () => {
  const before = deployment();
  const entries = created(before);
  const after = deployment('nginx:2');
  const next = recordUpdate(entries, compareObjects(before, after, DEPLOY, { skipStatus: true }), writer('kubectl-edit', '2026-01-02T00:00:00Z'));
  assert.deepEqual(next.map((e) => e.manager), ['kubectl-create', 'kubectl-edit']);
  const create = next[0].fieldsV1 as Json;
  assert.deepEqual(create['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"app"}'], { '.': {}, 'f:name': {}, 'f:resources': {} });
  assert.equal(next[0].time, '2026-01-01T00:00:00Z');
  assert.deepEqual(next[1].fieldsV1, { 'f:spec': { 'f:template': { 'f:spec': { 'f:containers': { 'k:{"name":"app"}': { 'f:image': {} } } } } } });

  const same = recordUpdate(next, compareObjects(after, structuredClone(after), DEPLOY, { skipStatus: true }), writer('kubectl-edit', '2026-01-03T00:00:00Z'));
  assert.equal(same, next, 'nothing changed: the entries and their times stay');
});

test('the same manager again: one entry, its fields merged, its time moved', () => {
  const before = deployment();
  let entries = created(before, 'tool');
  const after = { ...deployment(), spec: { ...deployment().spec, replicas: 2, paused: true } };
  entries = recordUpdate(entries, compareObjects(before, after, DEPLOY, { skipStatus: true }), writer('tool', '2026-01-05T00:00:00Z'));
  assert.equal(entries.length, 1);
  assert.equal(entries[0].time, '2026-01-05T00:00:00Z');
  assert.ok((entries[0].fieldsV1 as Json)['f:spec']['f:paused']);
  assert.ok((entries[0].fieldsV1 as Json)['f:metadata']['f:labels']);
});

test('removed fields leave every manager; an emptied entry goes', () => {
  const before = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
  const entries = recordUpdate([], compareObjects({}, before, CM), { manager: 'one', apiVersion: 'v1', time: 't' });
  const emptied = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} };
  const kept = recordUpdate(entries, compareObjects(before, emptied, CM), { manager: 'two', apiVersion: 'v1', time: 't2' });
  assert.deepEqual(kept.map((e) => [e.manager, e.time, e.fieldsV1]), [['one', 't', { 'f:data': { '.': {} } }]]);
  const gone = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } };
  assert.deepEqual(recordUpdate(entries, compareObjects(before, gone, CM), { manager: 'two', apiVersion: 'v1', time: 't2' }), []);
});

test('a scale write records no time (as upstream\'s scale handler), with its subresource', () => {
  const before = deployment();
  const after = { ...before, spec: { ...before.spec, replicas: 4 } };
  const next = recordUpdate(created(before), compareObjects(before, after, DEPLOY, { skipStatus: true }), { manager: 'kubectl', apiVersion: 'apps/v1', subresource: 'scale' });
  const scale = next.find((e) => e.subresource === 'scale')!;
  assert.equal(scale.time, undefined);
  assert.deepEqual(scale.fieldsV1, { 'f:spec': { 'f:replicas': {} } });
  assert.equal((next.find((e) => e.manager === 'kubectl-create')!.fieldsV1 as Json)['f:spec']['f:replicas'], undefined);
});

test('a status write compares only the status', () => {
  const before: Json = { ...deployment(), status: { replicas: 1 } };
  const after: Json = { ...before, spec: { ...before.spec, replicas: 9 }, status: { replicas: 2, readyReplicas: 1 } };
  const changes = compareObjects(before, after, DEPLOY, { statusOnly: true });
  assert.deepEqual(changes.ownedFieldsV1(), { 'f:status': { 'f:readyReplicas': {}, 'f:replicas': {} } });
});

test('bookkeeping metadata belongs to nobody', () => {
  const before = deployment();
  const after = { ...before, metadata: { ...before.metadata, resourceVersion: '9', generation: 4, managedFields: [] } };
  assert.ok(compareObjects(before, after, DEPLOY).isEmpty());
});

test('more than ten Update managers: the oldest merge into ancient-changes', () => {
  const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {} as Record<string, string> };
  let entries: ManagedFieldsEntry[] = [];
  let cur = base;
  for (let i = 0; i < 12; i++) {
    const next = { ...cur, data: { ...cur.data, [`k${i}`]: 'v' } };
    entries = recordUpdate(entries, compareObjects(cur, next, CM), { manager: `m${i}`, apiVersion: 'v1', time: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z` });
    cur = next;
  }
  assert.equal(entries.length, 10);
  const ancient = entries.find((e) => e.manager === 'ancient-changes')!;
  assert.deepEqual(ancient.fieldsV1, { 'f:data': { 'f:k0': {}, 'f:k1': {}, 'f:k2': {} } });
  assert.ok(!entries.some((e) => e.manager === 'm0' || e.manager === 'm2'));
});

test('the manager of a write without fieldManager comes from the User-Agent', () => {
  assert.equal(managerFromUserAgent('kubectl/v1.32.4 (linux/amd64) kubernetes/abc'), 'kubectl');
  assert.equal(managerFromUserAgent('kube-controller-manager/v1.35.0 (linux/amd64) kubernetes/x/system:serviceaccount:kube-system:x'), 'kube-controller-manager');
  assert.equal(managerFromUserAgent(''), 'unknown');
  assert.equal(managerFromUserAgent(undefined), 'unknown');
  assert.equal(managerFromUserAgent('a\u0000b\u001bc\u200bd/x'), 'abcd');
  assert.equal(managerFromUserAgent('x'.repeat(500)), 'x'.repeat(128));
  assert.equal(managerFromUserAgent('é'.repeat(100)), 'é'.repeat(64));
});

test('hostile shapes: prototype keys stay data, deep values are one leaf past the walk\'s depth', () => {
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', labels: JSON.parse('{"__proto__":"x","constructor":"y"}') }, data: JSON.parse('{"__proto__":"v"}') };
  const [entry] = recordUpdate([], compareObjects({}, obj, CM), { manager: 'm', apiVersion: 'v1', time: 't' });
  const fv = entry.fieldsV1 as Json;
  assert.ok(Object.prototype.hasOwnProperty.call(fv['f:data'], 'f:__proto__'));
  assert.deepEqual(Object.keys(fv['f:metadata']['f:labels']), ['.', 'f:__proto__', 'f:constructor']);
  assert.equal(({} as Json).x, undefined);
  let deep: Json = {};
  const top = deep;
  for (let i = 0; i < 5_000; i++) deep = deep.a = {};
  const changes = compareObjects(undefined, { apiVersion: 'x/v1', kind: 'T', metadata: { name: 't' }, spec: top }, undefined);
  let n = changes.root;
  let depth = 0;
  while (n.children) {
    n = [...n.children.values()][0];
    depth++;
  }
  assert.ok(depth <= maxChangeDepth + 1, `walked ${depth} levels`);
});
