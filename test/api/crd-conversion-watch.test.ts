// Watches of a custom resource in another version than its storage version, converted by a real HTTPS conversion
// webhook (one ConversionReview per event): the initial state and live events arrive converted and in the order
// of the storage version's watch even when the webhook answers out of order; a webhook that holds its answers
// holds back only that watch (a storage-version watch goes on), and a watch it holds back too long is cut off like
// any slow watcher; a refused conversion ends the watch after the events before it, without an ERROR event.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { parse } from 'yaml';
import { openWatch, useBonsai, type Watch } from './http.js';
import { startHttpsTestServer, type HttpsTestServer } from '../helpers/https-test-server.js';
import { backendCrd, convertedReview } from '../helpers/conversion-backends.js';
import { terminatedWatchersOf } from '../../src/api/watch-stream.js';
import { waitDeadline } from '../helpers/wait.js';

type Json = Record<string, any>;
const GROUP = 'watchconv.example.com';
const V1 = `/apis/${GROUP}/v1/namespaces/default/backends`;
const V2 = `/apis/${GROUP}/v2/namespaces/default/backends`;

/** How the webhook answers: after a random short delay, not until released, or refusing objects named poison. */
let mode: 'shuffle' | 'hold' = 'shuffle';
const heldAnswers: Array<() => void> = [];
let reviews = 0;

function serve(_url: string, review: Json, res: ServerResponse): void {
  reviews++;
  const answer = () => {
    const poisoned = review.request.objects.some((o: Json) => o.metadata?.name?.startsWith('poison'));
    const body = poisoned
      ? { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', response: { uid: review.request.uid, result: { status: 'Failure', message: 'poison cannot be converted' } } }
      : convertedReview(review);
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (mode === 'hold') heldAnswers.push(answer);
  else setTimeout(answer, Math.floor(Math.random() * 25));
}

async function until(what: string, pred: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!(await pred())) {
    if (Date.now() - t0 > waitDeadline(ms)) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const backend = (name: string, host: string, port = 80) => ({ apiVersion: `${GROUP}/v1`, kind: 'Backend', metadata: { name }, spec: { host, port } });
const objectEvents = (w: Watch) => w.events.filter((e) => e.type !== 'BOOKMARK');

describe('watching a custom resource through its conversion webhook', () => {
  let hook: HttpsTestServer;
  before(async () => {
    hook = await startHttpsTestServer('conversion-watch', serve);
  });
  after(async () => {
    for (const a of heldAnswers.splice(0)) a();
    await hook.close();
  });
  const { env, req } = useBonsai({ compactEveryMs: 0 });
  before(async () => {
    const crd = parse(backendCrd(GROUP, `{url: "${hook.base}/convert", caBundle: ${hook.caBundle}}`)) as Json;
    const r = await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
    assert.equal(r.status, 201, r.text.slice(0, 500));
    await until('backends served', async () => (await req('GET', V2)).status === 200);
  });

  it('converts the initial state and every live event, in the order of the storage version', async () => {
    for (let i = 0; i < 12; i++) assert.equal((await req('POST', V1, backend(`b${String(i).padStart(2, '0')}`, `h${i}.example`, i))).status, 201);
    const before = reviews;
    const stored = await openWatch(`${env.b.url}${V1}?watch=true&resourceVersion=0`);
    const converted = await openWatch(`${env.b.url}${V2}?watch=true&resourceVersion=0`);
    try {
      for (let i = 0; i < 12; i++) {
        const r = await req('PATCH', `${V1}/b${String(i % 4).padStart(2, '0')}`, { spec: { port: 1000 + i } }, { contentType: 'application/merge-patch+json' });
        assert.equal(r.status, 200, r.text.slice(0, 300));
      }
      assert.equal((await req('DELETE', `${V1}/b05`)).status, 200);
      await stored.waitFor((e) => e.length === 25, 20_000, 'the storage version watch');
      await converted.waitFor((e) => objectEvents(converted).length === 25, 20_000, 'the converted watch');
    } finally {
      stored.close();
      converted.close();
    }
    const v1 = stored.events.map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion, `${e.object.spec.host}:${e.object.spec.port}`]);
    const v2 = objectEvents(converted).map((e) => [e.type, e.object.metadata.name, e.object.metadata.resourceVersion, e.object.spec.address]);
    assert.deepEqual(v2, v1);
    for (const e of objectEvents(converted)) {
      assert.equal(e.object.apiVersion, `${GROUP}/v2`);
      assert.equal(e.object.metadata.labels.converted, 'yes');
    }
    assert.ok(reviews - before >= 25, `one review per event (${reviews - before})`);
  });

  it('holds back only the watch whose webhook is slow, and cuts it off when it falls too far behind', async () => {
    mode = 'hold';
    const rv = env.b.store.revision();
    const stored = await openWatch(`${env.b.url}${V1}?watch=true&resourceVersion=${rv}`);
    const converted = await openWatch(`${env.b.url}${V2}?watch=true&resourceVersion=${rv}`);
    try {
      assert.equal((await req('POST', V1, backend('slow-1', 'slow.example'))).status, 201);
      await stored.waitFor((e) => e.some((x) => x.object.metadata.name === 'slow-1'), 20_000, 'the storage version watch');
      await until('the conversion asked for', () => heldAnswers.length > 0);
      assert.equal(objectEvents(converted).length, 0, 'the converted watch waits for its answer');
      for (const a of heldAnswers.splice(0)) a();
      await converted.waitFor((e) => e.some((x) => x.object.metadata.name === 'slow-1'), 20_000, 'the converted event');
      assert.equal(objectEvents(converted)[0].object.spec.address, 'slow.example:80');

      // Answers held again: past about 100 events waiting, the watcher is cut off; the other one keeps going.
      const terminated = terminatedWatchersOf(env.b.registry).get(`backends.${GROUP}`) ?? 0;
      for (let i = 0; i < 110; i += 10) {
        const rs = await Promise.all(Array.from({ length: 10 }, (_, j) => req('POST', V1, backend(`burst-${i + j}`, 'burst.example'))));
        for (const r of rs) assert.equal(r.status, 201, r.text.slice(0, 300));
      }
      await converted.ended;
      assert.equal(terminatedWatchersOf(env.b.registry).get(`backends.${GROUP}`), terminated + 1);
      await stored.waitFor((e) => e.length === 111, 20_000, 'every event on the storage version watch');
      assert.ok(!stored.isEnded());
    } finally {
      stored.close();
      converted.close();
      mode = 'shuffle';
      for (const a of heldAnswers.splice(0)) a();
    }
  });

  it('ends the watch after the events before a conversion the webhook refuses, without an ERROR event', async () => {
    const rv = env.b.store.revision();
    const converted = await openWatch(`${env.b.url}${V2}?watch=true&resourceVersion=${rv}`);
    try {
      for (const name of ['fine-1', 'poison', 'fine-2']) assert.equal((await req('POST', V1, backend(name, 'x.example'))).status, 201);
      await converted.ended;
    } finally {
      converted.close();
    }
    assert.deepEqual(converted.events.map((e) => [e.type, e.object.metadata.name]), [['ADDED', 'fine-1']]);
    // The server goes on serving the version, and converts the objects it can.
    const r = await req('GET', `${V2}/fine-2`);
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.body.spec.address, 'x.example:80');
  });
});
