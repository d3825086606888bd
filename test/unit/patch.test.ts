import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';
import { applyJsonPatch, applyMergePatch, applyServerSideApply, applyStrategicMergePatch, patchTypeOf } from '../../src/api/patch/index.js';

const DEPLOY = { group: 'apps', version: 'v1', kind: 'Deployment' };
const POD = { group: '', version: 'v1', kind: 'Pod' };
const CM = { group: '', version: 'v1', kind: 'ConfigMap' };

function deployment(): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web', tier: 'front' }, finalizers: ['a/x', 'b/y', 'c/z'] },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            { name: 'app', image: 'nginx:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }], args: ['--a', '--b'] },
            { name: 'side', image: 'busybox' },
          ],
          tolerations: [{ key: 'k1', operator: 'Exists' }],
        },
      },
    },
  };
}

const podSpec = (o: KObject) => (o.spec as any).template.spec;
const status = (e: unknown) => (e instanceof ApiError ? e.code : -1);

test('patchTypeOf maps content types', () => {
  assert.equal(patchTypeOf('application/strategic-merge-patch+json; charset=utf-8'), 'strategic');
  assert.equal(patchTypeOf('application/json-patch+json'), 'json');
  assert.equal(patchTypeOf('application/merge-patch+json'), 'merge');
  assert.equal(patchTypeOf('application/apply-patch+yaml'), 'apply');
  assert.equal(patchTypeOf('application/json'), undefined);
});

test('SMP merges containers by name and does not mutate inputs', () => {
  const orig = deployment();
  const snapshot = structuredClone(orig);
  const patch = { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:2' }] } } } };
  const out = applyStrategicMergePatch(orig, patch, DEPLOY);
  assert.deepEqual(orig, snapshot);
  const cs = podSpec(out).containers;
  assert.deepEqual(cs.map((c: any) => c.name), ['app', 'side']);
  assert.equal(cs[0].image, 'nginx:2');
  assert.equal(cs[0].env.length, 2, 'untouched fields of the merged item stay');
});

test('SMP three-way patch from kubectl deletes an env var and keeps order', () => {
  const patch = { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'side' }], containers: [{ '$setElementOrder/env': [{ name: 'A' }], env: [{ $patch: 'delete', name: 'B' }], name: 'app' }] } } } };
  const out = applyStrategicMergePatch(deployment(), patch, DEPLOY);
  assert.deepEqual(podSpec(out).containers[0].env, [{ name: 'A', value: '1' }]);
  assert.deepEqual(podSpec(out).containers.map((c: any) => c.name), ['app', 'side']);
});

test('SMP $setElementOrder reorders and new items are appended', () => {
  const reordered = applyStrategicMergePatch(deployment(), { spec: { template: { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }] } } } }, DEPLOY);
  assert.deepEqual(podSpec(reordered).containers.map((c: any) => c.name), ['side', 'app']);

  // Without $setElementOrder upstream puts patch items ahead of server-only ones (what `kubectl patch` sees).
  const added = applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [{ name: 'log', image: 'fluentd' }] } } } }, DEPLOY);
  assert.deepEqual(podSpec(added).containers.map((c: any) => c.name), ['log', 'app', 'side']);

  // kubectl apply's three-way patch: a new container at the end of the configuration.
  const appended = applyStrategicMergePatch(deployment(), { spec: { template: { spec: {
    '$setElementOrder/containers': [{ name: 'app' }, { name: 'side' }, { name: 'log' }], containers: [{ name: 'log', image: 'fluentd' }],
  } } } }, DEPLOY);
  assert.deepEqual(podSpec(appended).containers.map((c: any) => c.name), ['app', 'side', 'log']);

  const ordered = applyStrategicMergePatch(deployment(), { spec: { template: { spec: {
    '$setElementOrder/containers': [{ name: 'app' }, { name: 'log' }, { name: 'side' }], containers: [{ name: 'log', image: 'fluentd' }],
  } } } }, DEPLOY);
  assert.deepEqual(podSpec(ordered).containers.map((c: any) => c.name), ['app', 'log', 'side']);
});

test('SMP merges ports by containerPort', () => {
  const out = applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443 }] }] } } } }, DEPLOY);
  assert.deepEqual(podSpec(out).containers[0].ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }, { containerPort: 443 }]);
});

test('SMP null removes labels; $patch replace/delete on maps', () => {
  const out = applyStrategicMergePatch(deployment(), { metadata: { labels: { tier: null, env: 'prod' } } }, DEPLOY);
  assert.deepEqual(out.metadata.labels, { app: 'web', env: 'prod' });
  const replaced = applyStrategicMergePatch(deployment(), { metadata: { labels: { $patch: 'replace', only: 'me' } } }, DEPLOY);
  assert.deepEqual(replaced.metadata.labels, { only: 'me' });
  const gone = applyStrategicMergePatch(deployment(), { spec: { template: { spec: { containers: [{ name: 'side', $patch: 'delete' }] } } } }, DEPLOY);
  assert.deepEqual(podSpec(gone).containers.map((c: any) => c.name), ['app']);
});

test('SMP $retainKeys switches the strategy to Recreate', () => {
  const out = applyStrategicMergePatch(deployment(), { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, DEPLOY);
  assert.deepEqual((out.spec as any).strategy, { type: 'Recreate' });
  assert.throws(() => applyStrategicMergePatch(deployment(), { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, DEPLOY),
    (e) => status(e) === 400 && /retainKeys/.test((e as Error).message));
});

test('SMP $deleteFromPrimitiveList and set-like primitive lists (finalizers)', () => {
  const out = applyStrategicMergePatch(deployment(), { metadata: { '$deleteFromPrimitiveList/finalizers': ['b/y'], finalizers: ['d/w', 'a/x'] } }, DEPLOY);
  // patch items first, in patch order, then server-only items
  assert.deepEqual(out.metadata.finalizers, ['d/w', 'a/x', 'c/z']);
  const ordered = applyStrategicMergePatch(deployment(), { metadata: { '$setElementOrder/finalizers': ['a/x', 'c/z', 'd/w'], '$deleteFromPrimitiveList/finalizers': ['b/y'], finalizers: ['d/w'] } }, DEPLOY);
  assert.deepEqual(ordered.metadata.finalizers, ['a/x', 'c/z', 'd/w']);
});

test('SMP replaces lists without a merge strategy (tolerations, args)', () => {
  const out = applyStrategicMergePatch(deployment(), { spec: { template: { spec: {
    tolerations: [{ key: 'k2', operator: 'Exists' }], containers: [{ name: 'app', args: ['--c'] }],
  } } } }, DEPLOY);
  assert.deepEqual(podSpec(out).tolerations, [{ key: 'k2', operator: 'Exists' }]);
  assert.deepEqual(podSpec(out).containers[0].args, ['--c']);
});

test('SMP on unknown fields behaves like a merge patch; malformed patches are 400', () => {
  const orig: KObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' }, extra: { list: [1, 2], m: { x: 1 } } };
  const out = applyStrategicMergePatch(orig, { data: { b: '2' }, extra: { list: [3], m: { x: null, y: 2 } } }, CM);
  assert.deepEqual(out.data, { a: '1', b: '2' });
  assert.deepEqual(out.extra, { list: [3], m: { y: 2 } });
  assert.throws(() => applyStrategicMergePatch(orig, [1], CM), (e) => status(e) === 400);
  assert.throws(() => applyStrategicMergePatch(orig, { metadata: { $patch: 'bogus' } }, CM), (e) => status(e) >= 400);
});

test('SMP $patch replace in a list and pod containers via core/v1 schema', () => {
  const pod: KObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } };
  const out = applyStrategicMergePatch(pod, { spec: { containers: [{ name: 'c', image: 'z' }, { $patch: 'replace' }] } }, POD);
  assert.deepEqual((out.spec as any).containers, [{ name: 'c', image: 'z' }]);
});

test('JSON patch add/remove/replace/test', () => {
  const doc = deployment();
  const out = applyJsonPatch(doc, [
    { op: 'test', path: '/spec/replicas', value: 2 },
    { op: 'replace', path: '/spec/replicas', value: 5 },
    { op: 'add', path: '/metadata/labels/new', value: 'yes' },
    { op: 'remove', path: '/metadata/labels/tier' },
    { op: 'add', path: '/spec/template/spec/containers/-', value: { name: 'c3' } },
    { op: 'copy', from: '/metadata/name', path: '/metadata/annotations' },
  ]) as any;
  assert.equal(out.spec.replicas, 5);
  assert.deepEqual(out.metadata.labels, { app: 'web', new: 'yes' });
  assert.equal(out.spec.template.spec.containers[2].name, 'c3');
  assert.equal(out.metadata.annotations, 'web');
  assert.equal((doc.spec as any).replicas, 2);

  const invalid = (e: unknown) => status(e) === 422 && (e as ApiError).reason === 'Invalid' && (e as Error).message === 'the server rejected our request due to an error in our request';
  assert.throws(() => applyJsonPatch(doc, [{ op: 'test', path: '/spec/replicas', value: 3 }]), invalid);
  assert.throws(() => applyJsonPatch(doc, [{ op: 'remove', path: '/metadata/nope' }]), invalid);
  assert.throws(() => applyJsonPatch(doc, [{ op: 'replace', path: '/spec/nope', value: 1 }]), invalid);
  assert.throws(() => applyJsonPatch(doc, [{ op: 'add', path: '/spec/a/b', value: 1 }]), invalid);
  assert.throws(() => applyJsonPatch(doc, [{ op: 'frob', path: '/spec' }]), invalid);
  assert.throws(() => applyJsonPatch(doc, { op: 'add' }), (e) => status(e) === 400);
});

test('merge patch: null removes, objects merge, lists replace', () => {
  const out = applyMergePatch(deployment(), { metadata: { labels: { tier: null } }, spec: { template: { spec: { tolerations: null, containers: [{ name: 'only' }] } } } }) as any;
  assert.deepEqual(out.metadata.labels, { app: 'web' });
  assert.equal('tolerations' in out.spec.template.spec, false);
  assert.deepEqual(out.spec.template.spec.containers, [{ name: 'only' }]);
  assert.throws(() => applyMergePatch({}, [1]), (e) => status(e) === 400);
  assert.throws(() => applyMergePatch({}, 'x'), (e) => status(e) === 400);
});

const NOW1 = '2025-01-01T00:00:00Z';
const NOW2 = '2025-01-01T00:01:00Z';
const appliedDeploy = (containers: unknown[], labels: Record<string, string> = { app: 'web' }): KObject => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers } } },
});

test('SSA create records managedFields in FieldsV1 notation', () => {
  const obj = applyServerSideApply(undefined, appliedDeploy([{ name: 'app', image: 'nginx' }]), DEPLOY, { fieldManager: 'kubectl', force: false, now: NOW1 });
  assert.equal((obj.spec as any).replicas, 1);
  const mf = obj.metadata.managedFields!;
  assert.equal(mf.length, 1);
  assert.deepEqual({ ...mf[0], fieldsV1: undefined }, { manager: 'kubectl', operation: 'Apply', apiVersion: 'apps/v1', time: NOW1, fieldsType: 'FieldsV1', fieldsV1: undefined });
  assert.deepEqual(mf[0].fieldsV1, {
    'f:metadata': { 'f:labels': { 'f:app': {} } },
    'f:spec': {
      'f:replicas': {},
      'f:selector': {},
      'f:template': {
        'f:metadata': { 'f:labels': { 'f:app': {} } },
        'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:name': {} } } },
      },
    },
  });
});

test('SSA re-apply removes fields it dropped but keeps fields of other managers', () => {
  let obj = applyServerSideApply(undefined, appliedDeploy([{ name: 'app', image: 'nginx' }], { app: 'web', tier: 'front' }), DEPLOY, { fieldManager: 'kubectl', force: false, now: NOW1 });
  // another manager adds a label and an annotation
  obj = applyServerSideApply(obj, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels: { team: 'x' }, annotations: { note: 'hi' } } }, DEPLOY, { fieldManager: 'other', force: false, now: NOW1 });
  assert.deepEqual(obj.metadata.labels, { app: 'web', tier: 'front', team: 'x' });
  // kubectl applies again without `tier` and with `team` (shared with `other`), without the sidecar-less change
  const next = applyServerSideApply(obj, appliedDeploy([{ name: 'app', image: 'nginx' }], { app: 'web', team: 'x' }), DEPLOY, { fieldManager: 'kubectl', force: false, now: NOW2 });
  assert.deepEqual(next.metadata.labels, { app: 'web', team: 'x' });
  assert.deepEqual(next.metadata.annotations, { note: 'hi' });
  // dropping `team` now keeps it: `other` still manages it
  const last = applyServerSideApply(next, appliedDeploy([{ name: 'app', image: 'nginx' }]), DEPLOY, { fieldManager: 'kubectl', force: false, now: NOW2 });
  assert.deepEqual(last.metadata.labels, { app: 'web', team: 'x' });
  const managers = last.metadata.managedFields!.map((m) => m.manager).sort();
  assert.deepEqual(managers, ['kubectl', 'other']);
  const other = last.metadata.managedFields!.find((m) => m.manager === 'other')!;
  assert.deepEqual(other.fieldsV1, { 'f:metadata': { 'f:annotations': { 'f:note': {} }, 'f:labels': { 'f:team': {} } } });
});

test('SSA merges containers as a list-map, prunes dropped items and reports conflicts', () => {
  const base = applyServerSideApply(undefined, appliedDeploy([{ name: 'app', image: 'nginx', ports: [{ containerPort: 80 }] }, { name: 'side', image: 'busybox' }]), DEPLOY, { fieldManager: 'kubectl', force: false, now: NOW1 });
  // a controller-like manager sets resources on the app container
  const other = applyServerSideApply(base, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'app', resources: { limits: { cpu: '1' } } }] } } } }, DEPLOY, { fieldManager: 'tuner', force: false, now: NOW1 });
  const cs1 = podSpec(other).containers;
  assert.deepEqual(cs1.map((c: any) => c.name), ['app', 'side']);
  assert.deepEqual(cs1[0], { name: 'app', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } });

  // kubectl drops the sidecar and changes the image: the sidecar goes, tuner's resources stay
  const next = applyServerSideApply(other, appliedDeploy([{ name: 'app', image: 'nginx:2', ports: [{ containerPort: 80 }] }]), DEPLOY, { fieldManager: 'kubectl', force: false, now: NOW2 });
  const cs2 = podSpec(next).containers;
  assert.deepEqual(cs2, [{ name: 'app', image: 'nginx:2', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }]);

  // tuner changing the image kubectl owns conflicts unless forced
  const grab = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:3' }] } } } };
  assert.throws(() => applyServerSideApply(next, grab, DEPLOY, { fieldManager: 'tuner', force: false, now: NOW2 }), (e) => {
    const err = e as ApiError;
    assert.equal(err.code, 409);
    assert.equal(err.reason, 'Conflict');
    assert.deepEqual(err.details?.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.spec.template.spec.containers[name="app"].image' }]);
    assert.equal(err.message, 'Apply failed with 1 conflict: conflict with "kubectl": .spec.template.spec.containers[name="app"].image');
    return true;
  });
  const forced = applyServerSideApply(next, grab, DEPLOY, { fieldManager: 'tuner', force: true, now: NOW2 });
  assert.equal(podSpec(forced).containers[0].image, 'nginx:3');
  const kubectl = forced.metadata.managedFields!.find((m) => m.manager === 'kubectl')!;
  const app = (kubectl.fieldsV1 as any)['f:spec']['f:template']['f:spec']['f:containers']['k:{"name":"app"}'];
  assert.equal('f:image' in app, false);
});
