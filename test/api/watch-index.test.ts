// Kubelet-style pod watches (fieldSelector spec.nodeName=NODE) are indexed as upstream's cacher indexes them: they
// see their node's pods, including a pod bound to the node after it was created, and nothing of other nodes.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openWatch, useBonsai } from './http.js';

const NS = 'indexed';
const PODS = `/api/v1/namespaces/${NS}/pods`;
const pod = (name: string, nodeName?: string) => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name },
  spec: { ...(nodeName ? { nodeName } : { schedulerName: 'nobody' }), containers: [{ name: 'c', image: 'nginx' }] },
});

describe('watches by spec.nodeName', () => {
  const { env, req } = useBonsai({ compactEveryMs: 0 });
  before(async () => {
    assert.equal((await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status, 201);
  });

  it("see their node's pods, a pod bound later included, and no other node's", async () => {
    const rv = env.b.store.revision();
    const mine = await openWatch(`${env.b.url}${PODS}?watch=true&resourceVersion=${rv}&fieldSelector=spec.nodeName%3Dnode-a`);
    const unbound = await openWatch(`${env.b.url}${PODS}?watch=true&resourceVersion=${rv}&fieldSelector=spec.nodeName%3D`);
    assert.equal((await req('POST', PODS, pod('on-a', 'node-a'))).status, 201);
    assert.equal((await req('POST', PODS, pod('on-b', 'node-b'))).status, 201);
    assert.equal((await req('POST', PODS, pod('later'))).status, 201);
    const bind = await req('POST', `${PODS}/later/binding`, { apiVersion: 'v1', kind: 'Binding', metadata: { name: 'later' }, target: { kind: 'Node', name: 'node-a' } });
    assert.equal(bind.status, 201, bind.text);
    assert.equal((await req('DELETE', `${PODS}/on-a?gracePeriodSeconds=0`)).status, 200);
    const names = (evs: { type: string; object: { metadata: { name: string } } }[]) => evs.map((e) => `${e.type} ${e.object.metadata.name}`);
    await mine.waitFor((evs) => evs.some((e) => e.type === 'DELETED'), 3000, 'the deletion');
    assert.deepEqual(names(mine.events).filter((n) => !n.startsWith('MODIFIED')), ['ADDED on-a', 'ADDED later', 'DELETED on-a']);
    await unbound.waitFor((evs) => evs.some((e) => e.type === 'DELETED'), 3000, 'the pod leaving the unbound selection');
    assert.deepEqual(names(unbound.events), ['ADDED later', 'DELETED later']);
    mine.close();
    unbound.close();
  });
});
