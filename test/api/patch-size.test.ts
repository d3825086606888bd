// Issue 22, item 1: one patch must not kill the server. The reported JSON patch (forty copies of a value into itself)
// and 10,000 copies of a 500 KB value built inside the patch get kube-apiserver's answer to a copy that takes the
// patch past its JSONPatchMaxCopyBytes (a 422 with a fixed message), and the server stays healthy. Each engine's
// result is bounded by the store's limit, with upstream's words, and a non-apply patch is retried without its
// managedFields when only they make it too large.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';
import { builtValueCopies, doublingCopies } from '../helpers/hostile-patch-size.js';

const NS = '/api/v1/namespaces/default';
const DEPLOYS = '/apis/apps/v1/namespaces/default/deployments';
const JSONPATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const copyRefused = 'the server rejected our request due to an error in our request';
const tooLarge = 'etcdserver: request is too large';

function deployment(name: string, args: string[], env: { name: string; value: string }[] = []) {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx', args, ...(env.length ? { env } : {}) }] } },
    },
  };
}

/** `n` arguments of 100 characters each (about 100 KB a thousand). */
const args = (n: number, c = 'a') => Array.from({ length: n }, (_, i) => `${c}${i}`.padEnd(100, c));

describe('patches that grow objects', () => {
  const { env, req } = useBonsai();

  const healthy = async () => {
    const h = await fetch(`${env.b.url}/healthz`);
    assert.equal(h.status, 200);
    assert.equal(await h.text(), 'ok');
  };

  it('refuses the reported patch with upstream\'s 422 and stays healthy', async () => {
    assert.equal((await req('POST', `${NS}/configmaps`, { metadata: { name: 'grow' }, data: { a: 'b' } })).status, 201);
    const before = await req('GET', `${NS}/configmaps/grow`);
    const body = JSON.stringify(doublingCopies());
    assert.ok(body.length < 2000, `the patch is ${body.length} bytes`);
    const r = await req('PATCH', `${NS}/configmaps/grow`, undefined, { raw: body, contentType: JSONPATCH });
    const s = assertStatus(r, 422, 'Invalid', copyRefused);
    assert.deepEqual(s.details, {});
    await healthy();
    const after = await req('GET', `${NS}/configmaps/grow`);
    assert.equal(after.body.metadata.resourceVersion, before.body.metadata.resourceVersion);
    assert.equal(after.body.x, undefined);
    // An ordinary patch still works.
    const ok = await req('PATCH', `${NS}/configmaps/grow`, { data: { z: '1' } }, { contentType: MERGE });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    assert.deepEqual(ok.body.data, { a: 'b', z: '1' });
  });

  it('refuses 10,000 copies of a 500 KB value built inside the patch', async () => {
    const body = JSON.stringify(builtValueCopies(512, 10_000));
    assert.ok(body.length < 3 * 1024 * 1024, `the patch is ${body.length} bytes, within the body limit`);
    const r = await req('PATCH', `${NS}/configmaps/grow`, undefined, { raw: body, contentType: JSONPATCH });
    assertStatus(r, 422, 'Invalid', copyRefused);
    await healthy();
    assert.equal((await req('GET', `${NS}/configmaps/grow`)).status, 200);
  });

  it('applies copies within the budget as independent values', async () => {
    const ops = [...Array.from({ length: 50 }, (_, i) => ({ op: 'copy', from: '/data/a', path: `/data/k${i}` })), { op: 'replace', path: '/data/k0', value: 'changed' }];
    const r = await req('PATCH', `${NS}/configmaps/grow`, undefined, { raw: JSON.stringify(ops), contentType: JSONPATCH });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.body.data.k0, 'changed');
    assert.equal(r.body.data.k49, 'b');
    assert.equal(r.body.data.a, 'b');
  });

  it('bounds what every engine produces by the size the store keeps', async () => {
    const created = await req('POST', DEPLOYS, deployment('big', args(9_000)));
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const path = `${DEPLOYS}/big`;
    const argsPath = '/spec/template/spec/containers/0/args';
    // JSON patch: one copy of 900 KB of arguments is within the copy budget, the object it makes is not.
    const json = await req('PATCH', path, undefined, { raw: JSON.stringify([{ op: 'copy', from: argsPath, path: '/spec/template/spec/containers/0/command' }]), contentType: JSONPATCH });
    assertStatus(json, 413, 'RequestEntityTooLarge', tooLarge);
    const grown = { spec: { template: { spec: { containers: [{ name: 'c', image: 'nginx', args: args(16_000, 'b') }] } } } };
    assertStatus(await req('PATCH', path, grown, { contentType: MERGE }), 413, 'RequestEntityTooLarge', tooLarge);
    assertStatus(await req('PATCH', path, grown, { contentType: SMP }), 413, 'RequestEntityTooLarge', tooLarge);
    const applied = deployment('big', args(16_000, 'b'));
    // Forced: the creator's Update entry owns the arguments, and the size is what is checked here.
    assertStatus(await req('PATCH', `${path}?fieldManager=size&force=true`, applied, { contentType: APPLY }), 413, 'RequestEntityTooLarge', tooLarge);
    await healthy();
    const after = await req('GET', path);
    assert.equal(after.body.spec.template.spec.containers[0].args.length, 9_000);
    assert.equal(after.body.spec.template.spec.containers[0].command, undefined);
  });

  it('retries a patch the store finds too large without its managedFields, as kube-apiserver does', async () => {
    // Applied with 4,000 long-named variables: their managedFields weigh about as much as the object.
    const vars = Array.from({ length: 4_000 }, (_, i) => ({ name: `V${i}_`.padEnd(100, 'x'), value: 'v' }));
    const created = await req('PATCH', `${DEPLOYS}/tracked?fieldManager=tool`, deployment('tracked', [], vars), { contentType: APPLY });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    assert.ok(JSON.stringify(created.body.metadata.managedFields).length > 500_000);
    const grown = { spec: { template: { spec: { containers: [{ name: 'c', args: args(6_000) }] } } } };
    const r = await req('PATCH', `${DEPLOYS}/tracked`, grown, { contentType: SMP });
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.body.spec.template.spec.containers[0].args.length, 6_000);
    assert.ok(!r.body.metadata.managedFields?.length, 'the managedFields were dropped');
  });
});
