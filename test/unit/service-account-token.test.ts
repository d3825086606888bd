// The ServiceAccount admission plugin's token volume (kube-api-access-<5 random>): added with its read-only mounts
// unless the pod or its ServiceAccount opts out, a container already mounts something at the path, or the pod is a
// mirror pod; entries that are not objects are left for validation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mountServiceAccountToken, tokenMountPath } from '../../src/admission/builtin/service-account-token.js';
import type { Pod } from '../../src/generated/k8s/core/v1.js';

const pod = (spec: Record<string, unknown>, annotations?: Record<string, string>): Pod => ({ metadata: { name: 'p', annotations }, spec: { containers: [{ name: 'c' }], ...spec } } as Pod);
const mounts = (p: Pod) => [...(p.spec?.initContainers ?? []), ...(p.spec?.containers ?? [])].map((c) => c.volumeMounts ?? []);

test('every container and init container mounts one projected volume read-only', () => {
  const p = pod({ initContainers: [{ name: 'i' }], containers: [{ name: 'a' }, { name: 'b', volumeMounts: [{ name: 'data', mountPath: '/data' }] }] });
  mountServiceAccountToken(p, () => undefined);
  const vol = p.spec?.volumes?.[0];
  assert.match(vol?.name ?? '', /^kube-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  assert.equal(p.spec?.volumes?.length, 1);
  assert.equal(vol?.projected?.defaultMode, 420);
  assert.deepEqual(vol?.projected?.sources?.map((s) => Object.keys(s)[0]), ['serviceAccountToken', 'configMap', 'downwardAPI']);
  const mine = { name: vol?.name, readOnly: true, mountPath: tokenMountPath };
  assert.deepEqual(mounts(p), [[mine], [mine], [{ name: 'data', mountPath: '/data' }, mine]]);
});

test('no volume when the pod or its ServiceAccount opts out, for mirror pods, or when every container mounts the path', () => {
  const off = pod({ automountServiceAccountToken: false });
  mountServiceAccountToken(off, () => true);
  const saOff = pod({ serviceAccountName: 'quiet' });
  mountServiceAccountToken(saOff, (name) => (name === 'quiet' ? false : undefined));
  const podWins = pod({ serviceAccountName: 'quiet', automountServiceAccountToken: true });
  mountServiceAccountToken(podWins, () => false);
  const mirror = pod({}, { 'kubernetes.io/config.mirror': 'x' });
  mountServiceAccountToken(mirror, () => undefined);
  const own = pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'mine', mountPath: tokenMountPath }] }] });
  mountServiceAccountToken(own, () => undefined);
  assert.deepEqual([off, saOff, mirror, own].map((p) => p.spec?.volumes), [undefined, undefined, undefined, undefined]);
  assert.equal(podWins.spec?.volumes?.length, 1);
});

test('a volume already named kube-api-access-* is reused; entries that are not objects are skipped', () => {
  const p = pod({ volumes: [{ name: 'kube-api-access-abcde', projected: { sources: [] } }] });
  mountServiceAccountToken(p, () => undefined);
  assert.equal(p.spec?.volumes?.length, 1);
  assert.deepEqual(mounts(p), [[{ name: 'kube-api-access-abcde', readOnly: true, mountPath: tokenMountPath }]]);
  const hostile = pod({ volumes: [null], containers: [null, { name: 'c', volumeMounts: [null] }] });
  assert.doesNotThrow(() => mountServiceAccountToken(hostile, () => undefined));
  assert.deepEqual(hostile.spec?.volumes, [null]);
});
