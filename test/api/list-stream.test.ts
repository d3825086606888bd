// Streamed lists (JSON, pretty JSON, Table), O(page) paging, stalled clients, and the max-in-flight limits.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { useBonsai, openWatch, rootCaPublished, sleep, type Resp } from './http.js';
import { ListStream, listBudgetOf, maxChunkBytes } from '../../src/api/list-stream.js';
import { inflightOf } from '../../src/api/inflight.js';
import type { Bonsai } from '../../src/main.js';
import type { KObject } from '../../src/machinery/types.js';
import { waitDeadline } from '../helpers/wait.js';

const tableAccept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';

async function createConfigMaps(b: Bonsai, ns: string, count: number, bytes = 16, prefix = 'cm'): Promise<void> {
  const def = b.registry.find('', 'v1', 'configmaps')!;
  const data = 'x'.repeat(bytes);
  for (let i = 0; i < count; i++) {
    await b.registry.create(def, ns, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${prefix}-${String(i).padStart(5, '0')}`, namespace: ns, labels: { parity: i % 2 ? 'odd' : 'even' } }, data: { v: data } });
  }
}

/** A namespace, once the root-ca-certificate-publisher has put its kube-root-ca.crt in it (as in every namespace). */
async function createNamespace(b: Bonsai, name: string): Promise<void> {
  await b.registry.create(b.registry.find('', 'v1', 'namespaces')!, '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await rootCaPublished(b, name);
}

/** A GET on a raw socket that is never read: the server's writes back up as a stalled client's would. */
function stalledGet(b: Bonsai, path: string): Promise<net.Socket> {
  const url = new URL(b.url);
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(url.port), url.hostname, () => {
      s.pause();
      s.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${b.credentials.token}\r\n\r\n`, () => resolve(s));
    });
    s.on('error', () => {});
    s.once('error', reject);
  });
}

async function until(pred: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + waitDeadline(timeoutMs);
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

function assertTooMany(r: Resp): void {
  assert.equal(r.status, 429, r.text.slice(0, 300));
  assert.equal(r.headers.get('retry-after'), '1');
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(r.text, 'Too many requests, please try again later.\n');
}

describe('streamed lists', () => {
  const { env, req } = useBonsai();

  it('streams a large list in chunks, every stored object in key order, as a GET of each answers it', async () => {
    await createNamespace(env.b, 'big');
    await createConfigMaps(env.b, 'big', 3000, 200);
    const r = await req('GET', '/api/v1/namespaces/big/configmaps');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.equal(r.headers.get('transfer-encoding'), 'chunked');
    assert.equal(r.headers.get('content-length'), null);
    assert.ok(r.text.endsWith('}\n'));
    assert.equal(r.body.kind, 'ConfigMapList');
    assert.equal(r.body.metadata.resourceVersion, String(env.b.store.revision()));
    const names = r.body.items.map((o: KObject) => o.metadata.name);
    assert.equal(names.length, 3001);
    assert.ok(names.includes('kube-root-ca.crt'));
    assert.deepEqual(names, [...names].sort());
    for (const i of [0, 1234, 2999]) {
      const one = await req('GET', `/api/v1/namespaces/big/configmaps/${names[i]}`);
      assert.equal(JSON.stringify(r.body.items[i]), one.text.trimEnd());
    }
    const empty = await req('GET', '/api/v1/namespaces/nothing-here/configmaps');
    assert.equal(empty.text, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${env.b.store.revision()}"},"items":[]}\n`);
  });

  it('sends committed objects as the text the store keeps, byte for byte their JSON.stringify, and a rewritten one afresh', async () => {
    await createNamespace(env.b, 'texts');
    const def = env.b.registry.find('', 'v1', 'configmaps')!;
    const odd = ['ключ 😀 漢字 \u2028\u2029', 'quote " back \\ tab \t nul \u0000 del \u007f </script>&', 'lone \ud800 x \udfff', '1e21'];
    for (let i = 0; i < 40; i++) {
      await env.b.registry.create(def, 'texts', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `t-${String(i).padStart(3, '0')}`, namespace: 'texts', annotations: { note: odd[i % 4] } }, data: { v: odd[i % odd.length].repeat(1 + i) } });
    }
    const store = env.b.store;
    // The store's texts (SQLite keeps them; a backend without storedText serializes, as the body below checks).
    const text = store.storedText?.bind(store) ?? ((_r: string, o: KObject) => JSON.stringify(o));
    const pending = env.b.registry.list(def, 'texts', {}).items[0];
    // Not committed yet: the write's own text.
    assert.equal(text('core/configmaps', pending), JSON.stringify(pending));
    await store.committed();
    const committed = env.b.registry.list(def, 'texts', {}).items;
    // Committed: read back from the change log, the same bytes.
    for (const o of committed) assert.equal(text('core/configmaps', o), JSON.stringify(o));
    // Rewritten: the old object's text is still its own until compaction drops it (see stored-text.test.ts); the new
    // one's is the new text.
    const before = committed[5];
    await env.b.registry.update(def, 'texts', before.metadata.name!, () => ({ ...before, data: { v: 'changed' } }));
    await store.committed();
    assert.equal(text('core/configmaps', before), JSON.stringify(before));
    const after = env.b.registry.list(def, 'texts', {}).items[5];
    assert.equal(text('core/configmaps', after), JSON.stringify(after));
    assert.match(text('core/configmaps', after) ?? '', /"changed"/);
    if (store.storedText) {
      // No text: a revision never written, none at all, a cold resource's object (Events carry their text themselves).
      assert.equal(store.storedText('core/configmaps', { ...before, metadata: { ...before.metadata, resourceVersion: '999999999' } }), undefined);
      assert.equal(store.storedText('core/configmaps', { ...before, metadata: { ...before.metadata, resourceVersion: undefined } }), undefined);
      assert.equal(store.storedText('core/events', { ...before, metadata: { ...before.metadata } }), undefined);
    }
    const r = await req('GET', '/api/v1/namespaces/texts/configmaps');
    assert.equal(r.status, 200);
    const items = env.b.registry.list(def, 'texts', {}).items;
    assert.equal(r.text, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${r.body.metadata.resourceVersion}"},"items":[${items.map((o) => JSON.stringify(o)).join(',')}]}\n`);
    assert.equal(r.body.items[5].data.v, 'changed');
    // A watch's initial events carry the same texts.
    const w = await req('GET', '/api/v1/namespaces/texts/configmaps?watch=true&timeoutSeconds=1');
    assert.equal(w.status, 200);
    assert.deepEqual(w.text.split('\n').filter(Boolean), items.map((o) => `{"type":"ADDED","object":${JSON.stringify(o)}}`));
  });

  it('sends a large list through a few chunk buffers, each filled again once the socket has written it', async () => {
    await createNamespace(env.b, 'reuse');
    await createConfigMaps(env.b, 'reuse', 3000, 3000);
    await env.b.store.committed();
    const alloc = Buffer.allocUnsafe;
    let chunkAllocs = 0;
    Buffer.allocUnsafe = (size: number) => {
      if (size === maxChunkBytes) chunkAllocs++;
      return alloc(size);
    };
    let r: Resp;
    try {
      r = await req('GET', '/api/v1/namespaces/reuse/configmaps');
    } finally {
      Buffer.allocUnsafe = alloc;
    }
    assert.equal(r.status, 200);
    const def = env.b.registry.find('', 'v1', 'configmaps')!;
    const items = env.b.registry.list(def, 'reuse', {}).items;
    assert.equal(r.text, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"${r.body.metadata.resourceVersion}"},"items":[${items.map((o) => JSON.stringify(o)).join(',')}]}\n`);
    const chunks = Math.ceil(r.text.length / maxChunkBytes);
    assert.ok(chunks >= 30, `${chunks} chunks`);
    assert.ok(chunkAllocs <= 8, `${chunkAllocs} chunk buffers allocated for ${chunks} chunks`);
  });

  it('indents pretty lists and Tables as Go does, escaping <, > and & and ending with no newline', async () => {
    await createNamespace(env.b, 'pretty');
    const def = env.b.registry.find('', 'v1', 'configmaps')!;
    await env.b.registry.create(def, 'pretty', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'html', namespace: 'pretty' }, data: { page: '<a href="x">&</a>', nested: '{"a":[1,{}]}' } });
    await createConfigMaps(env.b, 'pretty', 3);
    for (const accept of [undefined, tableAccept]) {
      const path = '/api/v1/namespaces/pretty/configmaps';
      const compact = await req('GET', path, undefined, { accept });
      const pretty = await req('GET', `${path}?pretty=true`, undefined, { accept });
      // Written meanwhile (the namespace's service account): the same objects, maybe a later list revision.
      const expected = JSON.parse(compact.text);
      expected.metadata.resourceVersion = JSON.parse(pretty.text).metadata.resourceVersion;
      const want = JSON.stringify(expected, null, 2).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
      assert.equal(pretty.text, want);
      if (!accept) assert.match(pretty.text, /\\u003ca href/);
    }
    const empty = await req('GET', '/api/v1/namespaces/nothing-here/configmaps?pretty=1');
    assert.equal(empty.text, `{\n  "kind": "ConfigMapList",\n  "apiVersion": "v1",\n  "metadata": {\n    "resourceVersion": "${env.b.store.revision()}"\n  },\n  "items": []\n}`);
  });

  it('pages with limit and continue through every object once, within a namespace and with a selector', async () => {
    for (const ns of ['pg', 'pg-a', 'pga']) await createNamespace(env.b, ns);
    await createConfigMaps(env.b, 'pg-a', 5, 16, 'before');
    await createConfigMaps(env.b, 'pg', 23);
    await createConfigMaps(env.b, 'pga', 5, 16, 'after');
    const walk = async (path: string, limit = 7) => {
      const names: string[] = [];
      const remaining: Array<number | undefined> = [];
      let cont = '';
      for (let pages = 0; pages < 50; pages++) {
        const r = await req('GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
        assert.equal(r.status, 200, r.text.slice(0, 300));
        names.push(...r.body.items.map((o: KObject) => o.metadata.name));
        remaining.push(r.body.metadata.remainingItemCount);
        cont = r.body.metadata.continue ?? '';
        if (!cont) return { names, remaining };
      }
      throw new Error('paging did not end');
    };
    const all = await walk('/api/v1/namespaces/pg/configmaps');
    assert.deepEqual(all.names, [...Array.from({ length: 23 }, (_, i) => `cm-${String(i).padStart(5, '0')}`), 'kube-root-ca.crt']);
    assert.deepEqual(all.remaining.slice(0, 3), [all.names.length - 7, all.names.length - 14, all.names.length - 21]);
    const odd = await walk('/api/v1/namespaces/pg/configmaps?labelSelector=parity%3Dodd');
    assert.deepEqual(odd.names, Array.from({ length: 11 }, (_, i) => `cm-${String(2 * i + 1).padStart(5, '0')}`));
    assert.deepEqual(odd.remaining, [undefined, undefined]);
    // A continue token pointing into another namespace reads nothing from it (a forged start key leaks nothing).
    for (const start of ['pga/after-00000', 'pg-a/before-00002', 'pg/\u0000', '\uffff', '']) {
      const token = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: env.b.store.revision(), start })).toString('base64url');
      const r = await req('GET', `/api/v1/namespaces/pg/configmaps?limit=3&continue=${token}`);
      assert.equal(r.status, 200, r.text.slice(0, 300));
      for (const o of r.body.items) assert.equal(o.metadata.namespace, 'pg');
    }
    // Across namespaces, in key order.
    const every = await walk('/api/v1/configmaps?labelSelector=parity', 500);
    const whole = await req('GET', '/api/v1/configmaps?labelSelector=parity');
    assert.deepEqual(every.names, whole.body.items.map((o: KObject) => o.metadata.name));
  });

  it('reads a page without visiting the rest of the list (the store scan stops after the limit)', async () => {
    await createNamespace(env.b, 'scan');
    await createConfigMaps(env.b, 'scan', 400);
    let visited = 0;
    const left = env.b.store.scan('core/configmaps', 'scan', 'scan/cm-00100', () => ++visited <= 10);
    assert.equal(visited, 11);
    // The 400, and the namespace's kube-root-ca.crt after them.
    assert.equal(left, 401 - 101 - 10);
    visited = 0;
    assert.equal(env.b.store.scan('core/configmaps', 'scan', 'scan/cm-00395', () => (++visited, true)), 0);
    assert.equal(visited, 5);
    assert.equal(env.b.store.scan('core/configmaps', 'scan-none', '', () => assert.fail('no objects there')), 0);
  });
});

describe('key order under churn', () => {
  const { env } = useBonsai();

  it('keeps lists and pages in key order while objects are created, deleted and created again between them', async () => {
    await createNamespace(env.b, 'churn');
    const def = env.b.registry.find('', 'v1', 'configmaps')!;
    const live = new Set<string>();
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 40; round++) {
      for (let k = 0; k < 1 + rand(30); k++) {
        const name = `c-${rand(300)}`;
        if (live.has(name)) {
          await env.b.registry.delete(def, 'churn', name);
          live.delete(name);
        } else {
          await env.b.registry.create(def, 'churn', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'churn' } });
          live.add(name);
        }
      }
      const want = [...live].sort();
      const got = env.b.registry.list(def, 'churn', {}).items.map((o) => o.metadata.name).filter((n) => n?.startsWith('c-'));
      assert.deepEqual(got, want, `round ${round}`);
      const page = env.b.registry.list(def, 'churn', { limit: 5, continue: undefined }).items.map((o) => o.metadata.name);
      assert.deepEqual(page.filter((n) => n?.startsWith('c-')), want.slice(0, page.filter((n) => n?.startsWith('c-')).length));
    }
  });
});

describe('list stream backpressure', () => {
  it('produces entries only as fast as its reader takes them', async () => {
    let produced = 0;
    const stream = new ListStream({ head: { kind: 'List' }, field: 'items', count: 1_000_000, entry: (i) => (produced++, `{"i":${i},"pad":"${'y'.repeat(100)}"}`) });
    let pending: (() => void) | undefined;
    let received = 0;
    const sink = new Writable({ highWaterMark: 16 * 1024, write(chunk: Buffer, _enc, cb) {
      received += chunk.length;
      pending = cb; // never acknowledged until the test says so: a reader that stopped
    } });
    stream.pipe(sink);
    await sleep(100);
    assert.ok(produced > 0 && produced < 5000, `produced ${produced} entries for a reader that stopped`);
    const before = produced;
    await sleep(100);
    assert.equal(produced, before);
    pending?.();
    await until(() => produced > before, 'more entries once the reader takes data');
    assert.ok(received > 0);
    stream.destroy();
  });
});

describe('stalled list clients', () => {
  const { env, req } = useBonsai({ listLimits: { stallMs: 300, maxBytesInflight: 1 } });

  it('cuts off a client that stops reading, releasing what its list held; a second list waits for the budget', async () => {
    await createNamespace(env.b, 'stall');
    await createConfigMaps(env.b, 'stall', 1500, 20_000);
    const budget = listBudgetOf(env.b.app);
    const s = await stalledGet(env.b, '/api/v1/namespaces/stall/configmaps');
    await until(() => budget.inUse() > 0, 'the list to start');
    // The budget (1 byte) is held by the stalled list: another list is refused until it is cut off.
    assertTooMany(await req('GET', '/api/v1/namespaces/stall/configmaps?limit=1'));
    await until(() => budget.inUse() === 0, 'the stalled list to be cut off');
    assert.equal((await req('GET', '/api/v1/namespaces/stall/configmaps?limit=1')).status, 200);
    s.destroy();
  });
});

describe('max requests in flight', () => {
  const { env, req } = useBonsai({ maxRequestsInflight: 1, maxMutatingRequestsInflight: 1, enablePriorityAndFairness: false, listLimits: { stallMs: 20_000 } });
  const anon = { anonymous: true };

  it('answers 429 with Retry-After beyond the limit; system:masters and watches are not limited', async () => {
    await createNamespace(env.b, 'busy');
    await createConfigMaps(env.b, 'busy', 1500, 20_000);
    assert.equal((await req('GET', '/api/v1/namespaces', undefined, anon)).status, 200);
    const s = await stalledGet(env.b, '/api/v1/namespaces/busy/configmaps');
    await until(() => listBudgetOf(env.b.app).inUse() > 0, 'the slow list to be in flight');
    assertTooMany(await req('GET', '/api/v1/namespaces', undefined, anon));
    assertTooMany(await req('GET', '/healthz', undefined, anon));
    // The admin (system:masters) is always served, as upstream serves its super-users.
    assert.equal((await req('GET', '/api/v1/namespaces')).status, 200);
    // Mutating requests have their own limit.
    const cm = await req('POST', '/api/v1/namespaces/busy/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'while-busy' } }, anon);
    assert.equal(cm.status, 201, cm.text.slice(0, 300));
    s.destroy();
    await until(() => listBudgetOf(env.b.app).inUse() === 0, 'the slow list to end');
    await sleep(20);
    assert.equal((await req('GET', '/api/v1/namespaces', undefined, anon)).status, 200);
  });

  it('does not count watches', async () => {
    const watches = await Promise.all([1, 2, 3].map(() => openWatch(`${env.b.url}/api/v1/namespaces/busy/configmaps?watch=true&resourceVersion=${env.b.store.revision()}`)));
    for (const w of watches) assert.equal(w.status, 200);
    assert.equal((await req('GET', '/api/v1/namespaces/busy/configmaps?limit=1', undefined, anon)).status, 200);
    for (const w of watches) w.close();
  });

  it('limits mutating requests apart from reads', async () => {
    await until(() => inflightOf(env.b.app).mutating === 0 && inflightOf(env.b.app).readOnly === 0, `no request in flight: ${JSON.stringify(inflightOf(env.b.app))}`);
    // A create whose body never finishes arriving holds the one mutating slot.
    const url = new URL(env.b.url);
    const s = net.connect(Number(url.port), url.hostname);
    s.on('error', () => {});
    await new Promise<void>((r) => s.once('connect', () => r()));
    let answered = '';
    s.on('data', (d: Buffer) => (answered += d.toString()));
    s.write(`POST /api/v1/namespaces/busy/configmaps HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    await until(() => inflightOf(env.b.app).mutating === 1, 'the slow create to be in flight');
    const r = await req('POST', '/api/v1/namespaces/busy/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'refused' } }, anon);
    assert.equal(answered, '');
    assertTooMany(r);
    assert.equal((await req('GET', '/api/v1/namespaces/busy/configmaps?limit=1', undefined, anon)).status, 200);
    s.destroy();
    await until(() => inflightOf(env.b.app).mutating === 0, 'the slow create to end');
    const ok = await req('POST', '/api/v1/namespaces/busy/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } }, anon);
    assert.equal(ok.status, 201);
  });
});
