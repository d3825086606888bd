// Watchers that stop reading are cut off once they fall about 100 events behind (as kube-apiserver's cacher
// terminates them), their sockets are reset and the server keeps serving; a watcher that reads gets every event.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { openWatchesOf, terminatedWatchersOf } from '../../src/api/watch-stream.js';
import { openWatch, rootCaPublished, useBonsai } from './http.js';
import { waitDeadline } from '../helpers/wait.js';

const NS = 'slow';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const big = 'x'.repeat(32 * 1024);

/** A raw watch request on a socket that never reads what the server sends. */
function neverReading(port: number, path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json\r\n\r\n`);
      resolve(s);
    });
    s.pause();
    s.on('error', () => {}); // the reset is expected; observed through 'close'
    s.once('error', reject);
  });
}

/** Resolves once `pred` holds, polling; fails after `ms`. */
async function until(what: string, pred: () => boolean, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > waitDeadline(ms)) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('slow watchers', () => {
  const { env, req } = useBonsai({ compactEveryMs: 0 });
  before(async () => {
    assert.equal((await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status, 201);
    // The namespace's kube-root-ca.crt (kube-controller-manager publishes one in every namespace) comes first.
    await rootCaPublished(env.b, NS);
  });

  it('cuts off watchers that do not read, keeps serving, and a reading watcher gets every event in order', async () => {
    const rv = env.b.store.revision();
    const path = `${CMS}?watch=true&resourceVersion=${rv}`;
    const subscribers = env.b.store.hub.count();
    const terminated = terminatedWatchersOf(env.b.registry).get('configmaps') ?? 0;
    const fast = await openWatch(env.b.url + path);
    const slow = await Promise.all(Array.from({ length: 20 }, () => neverReading(env.b.port, path)));
    await until('every watch subscribed', () => env.b.store.hub.count() === subscribers + 21);
    const closedAt = slow.map(() => false);
    slow.forEach((s, i) => s.on('close', () => { closedAt[i] = true; }));

    // A burst of writes, 16 at a time, each event about 32 KB.
    const n = 600;
    for (let i = 0; i < n; i += 16) {
      const rs = await Promise.all(Array.from({ length: Math.min(16, n - i) }, (_, j) =>
        req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `burst-${i + j}` }, data: { big } })));
      for (const r of rs) assert.equal(r.status, 201, r.text.slice(0, 300));
    }

    // The server gave up on every slow watcher: unsubscribed, counted, out of the open watches.
    await until('the slow watchers cut off', () => (terminatedWatchersOf(env.b.registry).get('configmaps') ?? 0) - terminated === 20);
    assert.equal(env.b.store.hub.count(), subscribers + 1, 'only the reading watcher is still subscribed');
    assert.equal(openWatchesOf(env.b.registry).size, 1);
    // Their sockets were reset by the server: once the client reads, each one is closed.
    for (const s of slow) s.resume();
    await until('the slow sockets closed by the server', () => closedAt.every(Boolean), 10_000);

    // The reading watcher got all n events, in order.
    await fast.waitFor((evs) => evs.length >= n, 20_000, `${n} events`);
    assert.equal(fast.events.length, n);
    assert.deepEqual(fast.events.map((e) => e.object.metadata.name).sort(), Array.from({ length: n }, (_, i) => `burst-${i}`).sort());
    const rvs = fast.events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.ok(rvs.every((v, i) => i === 0 || v > rvs[i - 1]), 'resourceVersions increase');
    assert.ok(fast.events.every((e) => e.type === 'ADDED' && e.object.data.big.length === big.length));
    assert.equal(fast.isEnded(), false);

    // Still serving: reads and a new watch.
    assert.equal((await req('GET', `${CMS}?limit=1`)).status, 200);
    const again = await openWatch(`${env.b.url}${CMS}?watch=true&resourceVersion=${env.b.store.revision()}`);
    assert.equal((await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } })).status, 201);
    await again.waitFor((evs) => evs.some((e) => e.object.metadata.name === 'after'), 5000, 'the event after the burst');
    again.close();
    fast.close();
  });

  it('streams a large initial state to a reader as the socket takes it, then live events', async () => {
    const ns = 'initial';
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal((await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
    await rootCaPublished(env.b, ns);
    const n = 600; // about 20 MB of initial events: far beyond a socket's buffers
    for (let i = 0; i < n; i += 16) {
      const rs = await Promise.all(Array.from({ length: Math.min(16, n - i) }, (_, j) =>
        req('POST', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `init-${String(i + j).padStart(3, '0')}` }, data: { big } })));
      for (const r of rs) assert.equal(r.status, 201);
    }
    const w = await openWatch(`${env.b.url}${path}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    assert.equal((await req('POST', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'live' } })).status, 201);
    await w.waitFor((evs) => evs.some((e) => e.object.metadata.name === 'live'), 20_000, 'the live event after the initial state');
    const names = w.events.map((e) => (e.type === 'BOOKMARK' ? 'BOOKMARK' : e.object.metadata.name));
    assert.deepEqual(names, [...Array.from({ length: n }, (_, i) => `init-${String(i).padStart(3, '0')}`), 'kube-root-ca.crt', 'BOOKMARK', 'live']);
    assert.equal(w.events[n + 1].object.metadata.annotations['k8s.io/initial-events-end'], 'true');
    w.close();
  });

  it('replays an old resourceVersion as the socket takes it, and ends the stream when compaction overtakes it, as upstream', async () => {
    const ns = 'replay';
    const path = `/api/v1/namespaces/${ns}/configmaps`;
    assert.equal((await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })).status, 201);
    await rootCaPublished(env.b, ns);
    const rv = env.b.store.revision();
    const n = 600; // about 20 MB of changes to replay
    for (let i = 0; i < n; i += 16) {
      const rs = await Promise.all(Array.from({ length: Math.min(16, n - i) }, (_, j) =>
        req('POST', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `r-${i + j}` }, data: { big } })));
      for (const r of rs) assert.equal(r.status, 201);
    }
    // A reader gets the whole replay in order.
    const subscribers = env.b.store.hub.count();
    const reader = await openWatch(`${env.b.url}${path}?watch=true&resourceVersion=${rv}`);
    await reader.waitFor((evs) => evs.length >= n, 20_000, 'the replay');
    const rvs = reader.events.map((e) => Number(e.object.metadata.resourceVersion));
    assert.equal(rvs.length, n);
    assert.ok(rvs.every((v, i) => i === 0 || v > rvs[i - 1]));
    reader.close();
    await until('the reader gone', () => env.b.store.hub.count() === subscribers);

    // A client that is not reading holds the replay back; compaction passes it; reading again, the client finds
    // the stream ended, and watching again from its last event it gets a 410.
    const s = await neverReading(env.b.port, `${path}?watch=true&resourceVersion=${rv}`);
    await until('the watch subscribed', () => env.b.store.hub.count() === subscribers + 1);
    env.b.store.compact(0);
    const chunks: Buffer[] = [];
    let tail = '';
    s.on('data', (d: Buffer) => {
      chunks.push(d);
      tail = (tail + d.toString('latin1')).slice(-16);
    });
    s.resume();
    // The connection stays open for the next request (keep-alive): the response ends with its last chunk.
    await until('the stream ended', () => tail.endsWith('\r\n0\r\n\r\n'), 10_000);
    const raw = Buffer.concat(chunks).toString();
    const body = dechunk(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    const events = body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { type: string; object: { metadata: { resourceVersion: string } } });
    assert.ok(events.length < n, `the replay stopped early (${events.length} events)`);
    assert.ok(events.every((e) => e.type === 'ADDED'));
    s.destroy();
    const again = await openWatch(`${env.b.url}${path}?watch=true&resourceVersion=${events[events.length - 1].object.metadata.resourceVersion}`);
    await again.ended;
    assert.equal(again.events.length, 1);
    assert.equal(again.events[0].type, 'ERROR');
    assert.equal(again.events[0].object.code, 410);
    assert.equal(again.events[0].object.reason, 'Expired');
  });
});

/** The body of a chunked HTTP response. */
function dechunk(text: string): string {
  let out = '';
  let i = 0;
  for (;;) {
    const crlf = text.indexOf('\r\n', i);
    if (crlf < 0) return out;
    const size = parseInt(text.slice(i, crlf), 16);
    if (!size) return out;
    out += text.slice(crlf + 2, crlf + 2 + size);
    i = crlf + 2 + size + 2;
  }
}
