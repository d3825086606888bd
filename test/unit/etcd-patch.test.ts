// Two servers on one etcd: a patch through one, right after a write through the other that its copy has yet to see,
// is applied again to the newer object (as kube-apiserver's patcher retries), never answered 409 or 404; a patch that
// names an outdated resourceVersion still conflicts; a delete of an object the other server just created finds it, and one racing the other server's write still deletes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { startEtcd } from '../helpers/etcd.js';

const cm = '/api/v1/namespaces/default/configmaps';

function caller(b: Bonsai) {
  return async (method: string, path: string, body?: unknown, type = 'application/merge-patch+json') => {
    const r = await fetch(b.url + path, { method, headers: { authorization: `Bearer ${b.credentials.token}`, 'content-type': method === 'PATCH' ? type : 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as { metadata: { resourceVersion: string }; data?: Record<string, string> } };
  };
}

test('a patch racing another server\'s write is applied to the newer object; a stale resourceVersion conflicts', { timeout: 120_000 }, async () => {
  const etcd = await startEtcd();
  const opts = { port: 0, data: ':memory:' as const, logLevel: 'silent', cluster: { nodes: 0 }, addons: [], controllers: [], storage: etcd.storage };
  const servers: Bonsai[] = [];
  try {
    servers.push(await startBonsai(opts), await startBonsai(opts));
    const [a, b] = servers.map(caller);
    assert.equal((await a('POST', cm, { metadata: { name: 'shared' }, data: {} })).status, 201);
    const codes: number[] = [];
    for (let i = 0; i < 20; i++) {
      // b writes, then a patches at once: a's copy may still be the one before b's write.
      const [wb, wa] = await Promise.all([b('PATCH', `${cm}/shared`, { data: { [`b${i}`]: 'x' } }), a('PATCH', `${cm}/shared`, { data: { [`a${i}`]: 'y' } })]);
      codes.push(wb.status, wa.status);
    }
    assert.deepEqual([...new Set(codes)], [200]);
    const final = await a('GET', `${cm}/shared`);
    const latest = (await b('GET', `${cm}/shared`)).body;
    for (let i = 0; i < 20; i++) assert.ok(latest.data?.[`a${i}`] === 'y' && latest.data?.[`b${i}`] === 'x', `both patches of round ${i} are kept`);
    // A patch that pins the resourceVersion it read, after the object moved on, conflicts.
    const stale = final.body.metadata.resourceVersion;
    assert.equal((await b('PATCH', `${cm}/shared`, { data: { moved: 'on' } })).status, 200);
    const pinned = await a('PATCH', `${cm}/shared`, { metadata: { resourceVersion: stale }, data: { late: 'z' } });
    assert.equal(pinned.status, 409);
    // An object created through one server is deleted through the other at once, though its copy has yet to see it.
    for (let i = 0; i < 5; i++) {
      assert.equal((await b('POST', cm, { metadata: { name: `fresh-${i}` } })).status, 201);
      assert.equal((await a('DELETE', `${cm}/fresh-${i}`)).status, 200);
    }
    // A delete racing the other server's write is decided again on the newer object: deleted, never a 409 or 500.
    const deletes: number[] = [];
    for (let i = 0; i < 10; i++) {
      assert.equal((await a('POST', cm, { metadata: { name: `raced-${i}` } })).status, 201);
      await b('GET', `${cm}/raced-${i}`);
      const [, del] = await Promise.all([b('PATCH', `${cm}/raced-${i}`, { data: { b: 'x' } }), a('DELETE', `${cm}/raced-${i}`)]);
      deletes.push(del.status);
    }
    assert.deepEqual([...new Set(deletes)], [200]);
  } finally {
    for (const s of servers) await s.close();
    await etcd.stop();
  }
});
