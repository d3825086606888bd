// CRDs with conversion strategy Webhook through the real kubectl: a Backend is `spec.host` + `spec.port` in v1 (the
// storage version) and `spec.address: "host:port"` in v2, converted by an HTTPS ConversionReview server in this test
// (a self-signed CA in caBundle, url clientConfig). Created in v1 and read in v2, updated and patched in v2 and read
// in v1, its status written in v2, listed in v2; a webhook that answers Failure, or a wrong uid, fails the read with
// upstream's 500; a webhook Service backed by simulated pods converts by carrying the fields over, with a Warning.
// `kubectl get -w` in v2 prints every event converted, and ends when the webhook refuses one; deletecollection in v2
// answers with the deleted objects converted.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';
import { startHttpsTestServer, type HttpsTestServer } from '../helpers/https-test-server.js';
import { backendCrd, backendV1, convertedReview } from '../helpers/conversion-backends.js';

type Json = Record<string, any>;

/** The reviews the server received, in order. */
const received: Json[] = [];

function serve(url: string, review: Json, res: ServerResponse): void {
  received.push(review);
  // A webhook that cannot convert one object (named poison), for the watch that meets it.
  if (review.request.objects.some((o: Json) => o.metadata?.name === 'poison')) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'poison cannot be converted' } } }));
    return;
  }
  const answer = convertedReview(review);
  const { uid } = review.request;
  if (url.startsWith('/fail')) answer.response = { uid, result: { status: 'Failure', message: 'backends cannot be converted today' } };
  if (url.startsWith('/bad-uid')) answer.response.uid = 'not-the-request';
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
}

const crd = backendCrd;
const backend = (group: string, name: string) => backendV1(group, name);

describe('CRD conversion webhooks with kubectl', () => {
  let server: HttpsTestServer;
  let base = '';
  let caBundle = '';
  before(async () => {
    server = await startHttpsTestServer('conversion-e2e', serve);
    ({ base, caBundle } = server);
  });
  after(() => server.close());
  const env = useKubectlServer({ args: [...noAddons] });
  const k = () => env.k;
  const getJson = async (resource: string, name: string) => JSON.parse(await k().ok(['get', resource, name, '-o', 'json'])) as Json;

  it('converts reads and writes between versions of different shapes', async () => {
    await k().ok(['apply', '-f', '-'], { input: crd('conv.example.com', `{url: "${base}/convert", caBundle: ${caBundle}}`) });
    await k().ok(['wait', '--for=condition=Established', 'crd/backends.conv.example.com', '--timeout=30s']);
    await k().ok(['apply', '-f', '-'], { input: backend('conv.example.com', 'db') });
    // Created in the storage version: nothing converted.
    const stored = await getJson('backends.v1.conv.example.com', 'db');
    assert.deepEqual(stored.spec, { host: 'db.example', port: 5432 });
    assert.equal(received.length, 0);

    const v2 = await getJson('backends.v2.conv.example.com', 'db');
    assert.equal(v2.apiVersion, 'conv.example.com/v2');
    assert.deepEqual(v2.spec, { address: 'db.example:5432' });
    assert.equal(v2.metadata.labels.converted, 'yes', 'labels from the webhook are kept');
    assert.equal(v2.metadata.uid, stored.metadata.uid);
    const review = received.at(-1)!;
    assert.equal(review.apiVersion, 'apiextensions.k8s.io/v1');
    assert.equal(review.request.desiredAPIVersion, 'conv.example.com/v2');
    assert.equal(review.request.objects[0].apiVersion, 'conv.example.com/v1');

    // Updated in v2 (replace), read in v1.
    v2.spec = { address: 'replica.example:6543' };
    await k().ok(['replace', '-f', '-'], { input: JSON.stringify(v2) });
    assert.deepEqual((await getJson('backends.v1.conv.example.com', 'db')).spec, { host: 'replica.example', port: 6543 });
    // Patched in v2.
    await k().ok(['patch', 'backends.v2.conv.example.com', 'db', '--type=merge', '-p', '{"spec":{"address":"other.example:7000"}}']);
    assert.deepEqual((await getJson('backends.v1.conv.example.com', 'db')).spec, { host: 'other.example', port: 7000 });
    // Its status written in v2: the spec stays as it was.
    await k().ok(['patch', 'backends.v2.conv.example.com', 'db', '--subresource=status', '--type=merge', '-p', '{"status":{"ready":true}}']);
    const afterStatus = await getJson('backends.v1.conv.example.com', 'db');
    assert.deepEqual([afterStatus.spec, afterStatus.status], [{ host: 'other.example', port: 7000 }, { ready: true }]);
    assert.deepEqual((await getJson('backends.v2.conv.example.com', 'db')).status, { ready: true });
    // Listed in v2.
    const list = JSON.parse(await k().ok(['get', 'backends.v2.conv.example.com', '-o', 'json'])) as Json;
    assert.deepEqual(list.items.map((i: Json) => [i.apiVersion, i.spec]), [['conv.example.com/v2', { address: 'other.example:7000' }]]);
  });

  it("fails reads in another version with upstream's 500 when the webhook refuses or answers for another request", async () => {
    for (const [group, path] of [['fail.example.com', '/fail'], ['uid.example.com', '/bad-uid']]) {
      await k().ok(['apply', '-f', '-'], { input: crd(group, `{url: "${base}${path}", caBundle: ${caBundle}}`) });
      await k().ok(['wait', '--for=condition=Established', `crd/backends.${group}`, '--timeout=30s']);
      await k().ok(['apply', '-f', '-'], { input: backend(group, 'db') });
      assert.deepEqual((await getJson(`backends.v1.${group}`, 'db')).spec, { host: 'db.example', port: 5432 });
    }
    const refused = await k().fails(['get', 'backends.v2.fail.example.com', 'db']);
    assert.match(refused, /conversion webhook for fail\.example\.com\/v1, Kind=Backend failed: backends cannot be converted today/);
    const raw = JSON.parse((await k().run(['get', '--raw', '/apis/fail.example.com/v2/namespaces/default/backends/db'])).stdout || '{}') as Json;
    if (raw.kind === 'Status') assert.equal(raw.code, 500);
    const wrongUid = await k().fails(['get', 'backends.v2.uid.example.com']);
    assert.match(wrongUid, /conversion webhook for uid\.example\.com\/v1, Kind=Backend failed: expected response\.uid="[0-9a-f-]+", got "not-the-request"/);
    // A write in v2 fails the same way, and nothing is written.
    const write = await k().fails(['patch', 'backends.v2.fail.example.com', 'db', '--type=merge', '-p', '{"spec":{"address":"x:1"}}']);
    assert.match(write, /backends cannot be converted today/);
  });

  it('carries the fields over, with a Warning, when the webhook Service is backed by simulated pods', async () => {
    await k().ok(['create', 'namespace', 'conv']);
    await k().ok(['create', 'deployment', 'converter', '-n', 'conv', '--image=registry.example/converter:1', '--port=8443']);
    await k().ok(['expose', 'deployment', 'converter', '-n', 'conv', '--port=443', '--target-port=8443']);
    await k().ok(['rollout', 'status', 'deployment/converter', '-n', 'conv', '--timeout=60s']);
    await k().ok(['apply', '-f', '-'], { input: crd('sim.example.com', `{service: {namespace: conv, name: converter, path: /convert}, caBundle: ${caBundle}}`) });
    await k().ok(['wait', '--for=condition=Established', 'crd/backends.sim.example.com', '--timeout=30s']);
    await k().ok(['apply', '-f', '-'], { input: backend('sim.example.com', 'db') });
    const before = received.length;
    const r = await k().run(['get', 'backends.v2.sim.example.com', 'db', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const v2 = JSON.parse(r.stdout) as Json;
    assert.equal(v2.apiVersion, 'sim.example.com/v2');
    assert.deepEqual(v2.spec, { host: 'db.example', port: 5432 });
    assert.match(r.stderr, /conversion webhook for sim\.example\.com\/Backend is served by simulated pods \(service conv\/converter\): converted without calling it/);
    assert.equal(received.length, before, 'the test server is not called');
  });

  it('converts every watch event, deletecollection answers, and a failed conversion ends the watch', async () => {
    const group = 'watch.example.com';
    await k().ok(['apply', '-f', '-'], { input: crd(group, `{url: "${base}/convert", caBundle: ${caBundle}}`) });
    await k().ok(['wait', '--for=condition=Established', `crd/backends.${group}`, '--timeout=30s']);
    await k().ok(['apply', '-f', '-'], { input: backendV1(group, 'db') });
    const w = k().start(['get', `backends.v2.${group}`, '-w']);
    try {
      await eventually(() => /^db\s+db\.example:5432\s*$/m.test(w.out()), 20_000, 'the listed row in v2');
      await k().ok(['apply', '-f', '-'], { input: backendV1(group, 'cache', 'cache.example', 6379) });
      await eventually(() => /^cache\s+cache\.example:6379\s*$/m.test(w.out()), 20_000, 'a created object, converted');
      await k().ok(['patch', `backends.v1.${group}`, 'db', '--type=merge', '-p', '{"spec":{"host":"replica.example"}}']);
      await eventually(() => /^db\s+replica\.example:5432\s*$/m.test(w.out()), 20_000, 'a change made in v1, converted');
      // The webhook refuses one object: the watch ends after the events before it, as upstream's does.
      await k().ok(['apply', '-f', '-'], { input: backendV1(group, 'poison') });
      await eventually(() => w.proc.exitCode !== null || w.proc.signalCode !== null, 20_000, 'the watch to end');
    } finally {
      w.stop();
    }
    assert.match(w.out(), /^NAME\s+ADDRESS$/m);
    assert.doesNotMatch(w.out(), /poison/);
    for (const row of w.out().trim().split('\n').slice(1)) assert.match(row, /^\S+\s+[a-z.]+:\d+$/, 'every row in the v2 shape');
    await k().ok(['delete', `backends.v1.${group}`, 'poison']);
    // deletecollection in v2 answers with the deleted objects converted.
    const deleted = JSON.parse(await k().ok(['delete', '--raw', `/apis/${group}/v2/namespaces/default/backends`])) as Json;
    assert.deepEqual(deleted.items.map((i: Json) => [i.apiVersion, i.metadata.name, i.spec]).sort(), [
      [`${group}/v2`, 'cache', { address: 'cache.example:6379' }], [`${group}/v2`, 'db', { address: 'replica.example:5432' }],
    ]);
    assert.equal((await k().ok(['get', `backends.v1.${group}`, '-o', 'name'])).trim(), '');
  });
});
