// The simulated registry and the kubelet's image pull failures: ErrImagePull, ImagePullBackOff with the kubelet's
// back-off (10 s doubling to 5 min), the annotation and cluster-file overrides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerStatus, Pod } from '../../src/generated/k8s/core/v1.js';
import { Harness, podSpec } from './kubelet-harness.js';
import { ImageRegistry, readRegistrySettings } from '../../src/kubelet/registry/image-registry.js';
import { parseClusterConfig } from '../../src/cluster/config.js';

const cs = (p: Pod | undefined): ContainerStatus => {
  const c = p?.status?.containerStatuses?.[0];
  assert.ok(c, 'a container status');
  return c;
};
const notFound = (ref: string) =>
  `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;

test('the registry knows the tags of well-known images, and nothing of other repositories', () => {
  const r = new ImageRegistry();
  for (const ok of ['nginx', 'nginx:latest', 'nginx:1.14.2', 'nginx:alpine', 'nginx:1.25.3-alpine', 'busybox:1.28', 'perl:5.34.0',
    'gcr.io/google-samples/kubernetes-bootcamp:v1', 'docker.io/jocatalin/kubernetes-bootcamp:v2', 'registry.k8s.io/pause:3.10',
    'registry.k8s.io/e2e-test-images/agnhost:2.39', 'example.com/whatever:anything', `nginx@sha256:${'a'.repeat(64)}`]) {
    assert.deepEqual(r.pull(ok), { ok: true }, ok);
  }
  assert.deepEqual(r.pull('nginx:nope'), { ok: false, message: notFound('docker.io/library/nginx:nope') });
  assert.deepEqual(r.pull('gcr.io/google-samples/kubernetes-bootcamp:v10'), { ok: false, message: notFound('gcr.io/google-samples/kubernetes-bootcamp:v10') });
  assert.equal(r.pull('nginx:1.99').ok, false);
});

test('the cluster file adds images, names failing references and can refuse unknown repositories', () => {
  const c = parseClusterConfig('registry:\n  unknownRepositories: fail\n  images: { example.com/team/app: [v1, v2], nginx: [custom] }\n  failing: [busybox:1.36]\n');
  const r = new ImageRegistry(c.registry);
  assert.equal(r.pull('example.com/team/app:v2').ok, true);
  assert.equal(r.pull('example.com/team/app:v3').ok, false);
  assert.equal(r.pull('nginx:custom').ok, true);
  assert.equal(r.pull('nginx:1.14.2').ok, true, 'known tags stay');
  assert.deepEqual(r.pull('busybox:1.36'), { ok: false, message: notFound('docker.io/library/busybox:1.36') });
  const denied = r.pull('example.com/other:v1');
  assert.ok(!denied.ok && /pull access denied, repository does not exist/.test(denied.message));
  const errors: string[] = [];
  readRegistrySettings({ unknownRepositories: 'maybe', images: { x: 'v1' }, failing: [3], bogus: 1 }, errors);
  assert.deepEqual(errors, [
    'registry.bogus: unknown field (expected one of unknownRepositories, images, failing)',
    'registry.unknownRepositories: must be pull or fail',
    'registry.images.x: must be a list of tags (at most 1000)',
    'registry.failing: must be a list of image references (at most 1000)',
  ]);
  assert.throws(() => parseClusterConfig('kubeSystem: maybe\n'), /kubeSystem: must be true or false/);
});

test('an unknown tag fails with ErrImagePull, then ImagePullBackOff, retried 10 s, 20 s, 40 s later', async () => {
  const h = await Harness.start();
  try {
    await h.create(podSpec('web', { containers: [{ name: 'web', image: 'nginx:nope' }] }));
    await h.run(260); // sandbox 50 ms + pull 200 ms
    let st = cs(h.pod('web'));
    assert.deepEqual(st.state, { waiting: { reason: 'ErrImagePull', message: notFound('docker.io/library/nginx:nope') } });
    assert.equal(h.pod('web')?.status?.phase, 'Pending');
    await h.run(1000);
    st = cs(h.pod('web'));
    assert.deepEqual(st.state, { waiting: { reason: 'ImagePullBackOff', message: `Back-off pulling image "nginx:nope": ErrImagePull: ${notFound('docker.io/library/nginx:nope')}` } });
    const events = () => h.events('web').map((e) => `${e.type} ${e.reason} ${e.message}`);
    assert.deepEqual(events(), [
      'Normal Pulling Pulling image "nginx:nope"',
      `Warning Failed Failed to pull image "nginx:nope": ${notFound('docker.io/library/nginx:nope')}`,
      'Warning Failed Error: ErrImagePull',
      'Normal BackOff Back-off pulling image "nginx:nope"',
      'Warning Failed Error: ImagePullBackOff',
    ]);
    const pullingAt = () => h.events('web').filter((e) => e.reason === 'Pulling').map((e) => e.count ?? 1).reduce((a, b) => a + b, 0);
    await h.run(8000); // 9.26 s after the first failure: still backing off
    assert.equal(pullingAt(), 1);
    await h.run(1000); // 10 s after the failure: a second pull, which fails again
    assert.equal(pullingAt(), 2);
    await h.run(19_000);
    assert.equal(pullingAt(), 2, 'the second back-off is 20 s');
    await h.run(1_500);
    assert.equal(pullingAt(), 3);
  } finally {
    h.close();
  }
});

test('the bonsai.dev/image-pull annotation makes a pull fail or succeed', async () => {
  const h = await Harness.start();
  try {
    await h.create(podSpec('a', { containers: [{ name: 'c', image: 'nginx:1.25' }] }, { 'bonsai.dev/image-pull': 'fail' }));
    await h.create(podSpec('b', { containers: [{ name: 'c', image: 'nginx:nope' }] }, { 'bonsai.dev/image-pull.c': 'ok' }));
    await h.run(500);
    assert.equal(cs(h.pod('a')).state?.waiting?.reason, 'ErrImagePull');
    assert.ok(cs(h.pod('b')).state?.running, 'b runs');
  } finally {
    h.close();
  }
});
