// HTTP semantics of reads: pagination, list resourceVersion semantics, watch streams (resume, initial events,
// bookmarks, timeouts, selector transitions, compaction) and Table output. kube-apiserver is the reference.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { assertStatus, client, openWatch, testStorage, type Watch } from './http.js';
import { within } from '../helpers/wait.js';
import { eventually } from '../helpers/kubectl.js';

const NS = 'reads';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data: { k: 'v' } });
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('HTTP semantics: lists, watches and tables', () => {
  let b: Bonsai;
  const req = client(() => b.url);
  const watches: Watch[] = [];
  const watch = async (path: string, headers: Record<string, string> = {}) => {
    const w = await openWatch(b.url + path, headers);
    watches.push(w);
    return w;
  };
  const names = (evs: { type: string; object: { metadata: { name: string } } }[]) => evs.map((e) => `${e.type} ${e.object.metadata.name}`);

  let storage: Awaited<ReturnType<typeof testStorage>> | undefined;
  before(async () => {
    storage = await testStorage();
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', compactEveryMs: 0, cluster: { nodes: 0 }, addons: [], ...storage.options });
    const r = await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    assert.equal(r.status, 201);
    // The root CA publisher puts kube-root-ca.crt into every new namespace, once the cluster's CA is made: the watches
    // below must see only the tests' own ConfigMaps, so it is there first.
    await eventually(async () => (await req('GET', `${CMS}/kube-root-ca.crt`)).status === 200, 20_000, 'kube-root-ca.crt in the namespace');
  });
  after(async () => {
    for (const w of watches) w.close();
    await b?.close();
    await storage?.stop();
  });

  describe('pagination', () => {
    it('walks all items in order with limit and continue', async () => {
      for (const n of ['p-e', 'p-a', 'p-d', 'p-c', 'p-b']) assert.equal((await req('POST', CMS, cm(n, { page: 'yes' }))).status, 201);
      const full = (await req('GET', CMS)).body;
      const expected = full.items.map((i: { metadata: { name: string } }) => i.metadata.name);
      assert.ok(expected.length >= 5);
      assert.deepEqual(expected, [...expected].sort());
      assert.equal(full.metadata.continue, undefined);

      const seen: string[] = [];
      let cont: string | undefined;
      let pages = 0;
      do {
        const r = await req('GET', `${CMS}?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
        assert.equal(r.status, 200, r.text);
        assert.equal(r.body.kind, 'ConfigMapList');
        assert.ok(r.body.items.length <= 2);
        seen.push(...r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name));
        cont = r.body.metadata.continue;
        if (cont) assert.equal(r.body.metadata.remainingItemCount, expected.length - seen.length);
        else assert.equal(r.body.metadata.remainingItemCount, undefined);
        pages++;
      } while (cont && pages < 20);
      assert.deepEqual(seen, expected);
      assert.equal(pages, Math.ceil(expected.length / 2));
    });

    it('keeps paging consistent when objects are added behind the cursor', async () => {
      const p1 = (await req('GET', `${CMS}?limit=2&labelSelector=page%3Dyes`)).body;
      assert.deepEqual(p1.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['p-a', 'p-b']);
      assert.ok(p1.metadata.continue);
      assert.equal(p1.metadata.remainingItemCount, undefined, 'no remainingItemCount with a selector');
      await req('POST', CMS, cm('p-0', { page: 'yes' }));
      const p2 = (await req('GET', `${CMS}?limit=10&labelSelector=page%3Dyes&continue=${encodeURIComponent(p1.metadata.continue)}`)).body;
      assert.deepEqual(p2.items.map((i: { metadata: { name: string } }) => i.metadata.name), ['p-c', 'p-d', 'p-e']);
      assert.equal(p2.metadata.continue, undefined);
    });

    it('rejects resourceVersion together with continue', async () => {
      const p1 = (await req('GET', `${CMS}?limit=1`)).body;
      const r = await req('GET', `${CMS}?limit=1&continue=${encodeURIComponent(p1.metadata.continue)}&resourceVersion=${p1.metadata.resourceVersion}`);
      assertStatus(r, 400, 'BadRequest', 'specifying resource version is not allowed when using continue');
    });
  });

  describe('list resourceVersion semantics', () => {
    it('serves resourceVersion=0, NotOlderThan and Exact with the current revision', async () => {
      let cur = String(b.store.revision());
      for (let q of ['resourceVersion=0', `resourceVersion=${cur}&resourceVersionMatch=NotOlderThan`, `resourceVersion=${cur}&resourceVersionMatch=Exact`, 'resourceVersion=1&resourceVersionMatch=NotOlderThan', `resourceVersion=${cur}`]) {
        let r = await req('GET', `${CMS}?${q}`);
        // Exact serves the current revision only: a background write (a controller publishing into a new namespace)
        // between reading it and asking makes it too old, and it is asked again at the new one.
        for (let tries = 0; q.endsWith('Exact') && r.status === 410 && String(b.store.revision()) !== cur && tries < 20; tries++) {
          cur = String(b.store.revision());
          q = `resourceVersion=${cur}&resourceVersionMatch=Exact`;
          r = await req('GET', `${CMS}?${q}`);
        }
        assert.equal(r.status, 200, `${q}: ${r.text}`);
        // Exact is the revision asked for; the others the current one, which a background write (a controller
        // running late on a loaded machine) may have moved on since `cur` was read.
        const rv = Number(r.body.metadata.resourceVersion);
        if (q.endsWith('Exact')) assert.equal(r.body.metadata.resourceVersion, cur, q);
        else assert.ok(rv >= Number(cur) && rv <= b.store.revision(), `${q}: ${rv} not in [${cur}, ${b.store.revision()}]`);
        assert.ok(r.body.items.length >= 5);
      }
    });

    it('answers a resourceVersion newer than the store with 504 Timeout', async () => {
      const cur = b.store.revision();
      const big = cur + 1000;
      for (const q of [`resourceVersion=${big}`, `resourceVersion=${big}&resourceVersionMatch=NotOlderThan`, `resourceVersion=${big}&resourceVersionMatch=Exact`]) {
        const r = await req('GET', `${CMS}?${q}`);
        // The current revision is the store's when the request was served: a background write may have moved it on.
        const now = Number(/current: (\d+)$/.exec(String(r.body?.message))?.[1]);
        assert.ok(now >= cur && now <= b.store.revision(), `${q}: current ${now} not in [${cur}, ${b.store.revision()}]`);
        const s = assertStatus(r, 504, 'Timeout', `Timeout: Too large resource version: ${big}, current: ${now}`);
        assert.deepEqual(s.details.causes, [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }]);
        assert.equal(s.details.retryAfterSeconds, 1);
      }
      // A GET of one object follows the same rule; "0" or an older revision reads the current object.
      assert.equal((await req('POST', CMS, cm('rv-get'))).status, 201);
      assertStatus(await req('GET', `${CMS}/rv-get?resourceVersion=${b.store.revision() + 1000}`), 504, 'Timeout');
      for (const rv of ['0', '1']) assert.equal((await req('GET', `${CMS}/rv-get?resourceVersion=${rv}`)).body.metadata.name, 'rv-get');
    });

    it('rejects invalid resourceVersionMatch combinations with 422 on ListOptions', async () => {
      const s = assertStatus(await req('GET', `${CMS}?resourceVersionMatch=Exact`), 422, 'Invalid',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
      assert.deepEqual({ group: s.details.group, kind: s.details.kind }, { group: 'meta.k8s.io', kind: 'ListOptions' });
      assert.deepEqual(s.details.causes, [{ reason: 'FieldValueForbidden', message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided', field: 'resourceVersionMatch' }]);
      assertStatus(await req('GET', `${CMS}?resourceVersion=1&resourceVersionMatch=Newest`), 422, 'Invalid',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""');
      assertStatus(await req('GET', `${CMS}?resourceVersion=0&resourceVersionMatch=Exact`), 422, 'Invalid',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"');
    });

    it('rejects a set-based label selector with an empty value set, as upstream does', async () => {
      assertStatus(await req('GET', `${CMS}?labelSelector=${encodeURIComponent('tier in ()')}`), 400, 'BadRequest',
        /values set can't be empty/);
      assert.equal((await req('GET', `${CMS}?labelSelector=${encodeURIComponent('tier in (web,)')}`)).status, 200);
    });

  });

  describe('watch', () => {
    it('sends only changes after the given resourceVersion', async () => {
      await req('POST', CMS, cm('w-before'));
      const rv = String(b.store.revision());
      const w = await watch(`${CMS}?watch=true&resourceVersion=${rv}`);
      assert.equal(w.status, 200);
      assert.equal(w.headers.get('content-type'), 'application/json');
      await req('POST', CMS, cm('w-after'));
      await req('PATCH', `${CMS}/w-after`, { data: { k: 'v2' } }, { contentType: 'application/merge-patch+json' });
      await req('DELETE', `${CMS}/w-after`);
      await w.waitFor((evs) => evs.length >= 3, 3000, 'three events');
      assert.deepEqual(names(w.events), ['ADDED w-after', 'MODIFIED w-after', 'DELETED w-after']);
      assert.equal(w.events[1].object.data.k, 'v2');
      assert.equal(w.events[0].object.kind, 'ConfigMap');
      assert.equal(w.events[0].object.apiVersion, 'v1');
      const rvs = w.events.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(rvs, [...rvs].sort((x, y) => x - y));
      assert.ok(rvs[0] > Number(rv));
      w.close();
    });

    it('replays changes between an older resourceVersion and now', async () => {
      const rv = String(b.store.revision());
      await req('POST', CMS, cm('w-replay'));
      const w = await watch(`/api/v1/watch/namespaces/${NS}/configmaps?resourceVersion=${rv}`);
      await w.waitFor((evs) => evs.length >= 1, 3000, 'the replayed event');
      assert.deepEqual(names(w.events), ['ADDED w-replay']);
      w.close();
    });

    it('starts with synthetic ADDED events when resourceVersion is unset or 0', async () => {
      const list = (await req('GET', CMS)).body;
      const all = list.items.map((i: { metadata: { name: string } }) => `ADDED ${i.metadata.name}`);
      for (const q of ['', '&resourceVersion=0']) {
        const w = await watch(`${CMS}?watch=true${q}`);
        await w.waitFor((evs) => evs.length >= all.length, 3000, 'initial events');
        assert.deepEqual(names(w.events).sort(), [...all].sort());
        await req('PATCH', `${CMS}/p-a`, { metadata: { annotations: { touched: q || 'unset' } } }, { contentType: 'application/merge-patch+json' });
        await w.waitFor((evs) => evs.length > all.length, 3000, 'a MODIFIED after the initial events');
        assert.equal(names(w.events)[all.length], 'MODIFIED p-a');
        w.close();
      }
    });

    it('watches a single object by name with a synthetic ADDED first (kubectl get NAME -w)', async () => {
      const w = await watch(`${CMS}?watch=true&fieldSelector=metadata.name%3Dp-b&resourceVersion=0`);
      await w.waitFor((evs) => evs.length >= 1, 3000, 'the synthetic ADDED');
      assert.deepEqual(names(w.events), ['ADDED p-b']);
      await req('PATCH', `${CMS}/p-c`, { data: { k: 'other' } }, { contentType: 'application/merge-patch+json' });
      await req('PATCH', `${CMS}/p-b`, { data: { k: 'mine' } }, { contentType: 'application/merge-patch+json' });
      await w.waitFor((evs) => evs.length >= 2, 3000, 'the MODIFIED');
      assert.deepEqual(names(w.events), ['ADDED p-b', 'MODIFIED p-b']);
      w.close();
    });

    it('turns label selector transitions into ADDED and DELETED', async () => {
      await req('POST', CMS, cm('sel-in', { tier: 'web' }));
      await req('POST', CMS, cm('sel-out', { tier: 'db' }));
      const rv = String(b.store.revision());
      const w = await watch(`${CMS}?watch=true&resourceVersion=${rv}&labelSelector=tier%3Dweb`);
      const relabel = (name: string, tier: string) => req('PATCH', `${CMS}/${name}`, { metadata: { labels: { tier } } }, { contentType: 'application/merge-patch+json' });
      await relabel('sel-in', 'db'); // leaves the selection
      await relabel('sel-out', 'web'); // enters it
      await req('PATCH', `${CMS}/sel-out`, { data: { k: 'x' } }, { contentType: 'application/merge-patch+json' });
      await relabel('sel-in', 'cache'); // stays outside: nothing
      await req('DELETE', `${CMS}/sel-out`);
      await w.waitFor((evs) => evs.length >= 4, 3000, 'four transition events');
      assert.deepEqual(names(w.events), ['DELETED sel-in', 'ADDED sel-out', 'MODIFIED sel-out', 'DELETED sel-out']);
      assert.equal(w.events[0].object.metadata.labels.tier, 'db', 'DELETED carries the new state');
      w.close();
    });

    it('sends BOOKMARK events with allowWatchBookmarks and closes after timeoutSeconds', async () => {
      const rv = String(b.store.revision());
      const started = Date.now();
      const w = await watch(`${CMS}?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true&timeoutSeconds=1`);
      await req('POST', CMS, cm('bm-1'));
      await w.ended;
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 900, `closed after ${elapsed} ms, before timeoutSeconds`);
      assert.equal(w.events[0].type, 'ADDED');
      const bookmarks = w.events.filter((e) => e.type === 'BOOKMARK');
      assert.ok(bookmarks.length >= 1, `a BOOKMARK before close: ${JSON.stringify(w.events)}`);
      const last = w.events[w.events.length - 1];
      assert.equal(last.type, 'BOOKMARK');
      assert.equal(last.object.kind, 'ConfigMap');
      assert.equal(last.object.apiVersion, 'v1');
      assert.match(last.object.metadata.resourceVersion, /^\d+$/);
      assert.ok(Number(last.object.metadata.resourceVersion) >= Number(w.events[0].object.metadata.resourceVersion));
    });

    it('closes a watch without bookmarks after timeoutSeconds and sends none', async () => {
      const w = await watch(`${CMS}?watch=true&resourceVersion=${b.store.revision()}&timeoutSeconds=1`);
      await within(w.ended, 4000, 'the watch to end after timeoutSeconds');
      assert.deepEqual(w.events, []);
    });

    it('marks the end of initial events with a BOOKMARK for sendInitialEvents', async () => {
      const w = await watch(`${CMS}?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&labelSelector=page%3Dyes`);
      await w.waitFor((evs) => evs.some((e) => e.type === 'BOOKMARK'), 3000, 'the initial-events-end bookmark');
      const i = w.events.findIndex((e) => e.type === 'BOOKMARK');
      assert.equal(i, 6, JSON.stringify(names(w.events.filter((e) => e.type !== 'BOOKMARK'))));
      assert.ok(w.events.slice(0, i).every((e) => e.type === 'ADDED'));
      assert.equal(w.events[i].object.metadata.annotations['k8s.io/initial-events-end'], 'true');
      w.close();
    });

    it('sends an ERROR event for a resourceVersion newer than the store', async () => {
      const w = await watch(`${CMS}?watch=true&resourceVersion=${b.store.revision() + 100}&timeoutSeconds=2`);
      assert.equal(w.status, 200);
      await w.ended;
      assert.equal(w.events.length, 1);
      assert.equal(w.events[0].type, 'ERROR');
      assert.equal(w.events[0].object.kind, 'Status');
      assert.equal(w.events[0].object.code, 504);
      assert.equal(w.events[0].object.reason, 'Timeout');
    });
  });

  describe('Table output', () => {
    it('lists as a Table with column definitions, rows and partial metadata', async () => {
      const r = await req('GET', `${CMS}?labelSelector=page%3Dyes`, undefined, { accept: TABLE });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.kind, 'Table');
      assert.equal(r.body.apiVersion, 'meta.k8s.io/v1');
      assert.match(r.body.metadata.resourceVersion, /^\d+$/);
      const cols = r.body.columnDefinitions;
      assert.deepEqual(cols.map((c: { name: string }) => c.name), ['Name', 'Data', 'Age']);
      assert.equal(cols[0].type, 'string');
      assert.equal(cols[0].format, 'name');
      for (const c of cols) assert.equal(typeof c.description, 'string');
      assert.equal(r.body.rows.length, 6);
      const row = r.body.rows[0];
      assert.equal(row.cells.length, cols.length);
      assert.equal(row.cells[0], 'p-0');
      assert.equal(row.cells[1], 1);
      assert.equal(row.object.kind, 'PartialObjectMetadata');
      assert.equal(row.object.apiVersion, 'meta.k8s.io/v1');
      assert.equal(row.object.metadata.name, 'p-0');
      assert.equal(row.object.metadata.namespace, NS);
      assert.equal(row.object.data, undefined);
    });

    it('puts the whole object in the row with includeObject=Object, none with None', async () => {
      const r = await req('GET', `${CMS}?labelSelector=page%3Dyes&includeObject=Object`, undefined, { accept: TABLE });
      assert.equal(r.body.rows[0].object.kind, 'ConfigMap');
      assert.equal(r.body.rows[0].object.apiVersion, 'v1');
      assert.deepEqual(r.body.rows[0].object.data, { k: 'v' });
      const n = await req('GET', `${CMS}?labelSelector=page%3Dyes&includeObject=None`, undefined, { accept: TABLE });
      assert.equal(n.body.rows[0].object, undefined);
    });

    it('returns a one-row Table for a single object, paged Tables with continue', async () => {
      const one = await req('GET', `${CMS}/p-a`, undefined, { accept: TABLE });
      assert.equal(one.body.kind, 'Table');
      assert.equal(one.body.rows.length, 1);
      assert.equal(one.body.rows[0].cells[0], 'p-a');
      assert.equal(one.body.metadata.resourceVersion, (await req('GET', `${CMS}/p-a`)).body.metadata.resourceVersion);
      const page = await req('GET', `${CMS}?limit=2`, undefined, { accept: TABLE });
      assert.equal(page.body.rows.length, 2);
      assert.ok(page.body.metadata.continue);
    });

    it('sends Table watch events with column definitions only in the first', async () => {
      const w = await watch(`${CMS}?watch=true&labelSelector=page%3Dyes&resourceVersion=0`, { accept: TABLE });
      await w.waitFor((evs) => evs.length >= 6, 3000, 'six table events');
      assert.ok(w.events.every((e) => e.object.kind === 'Table' && e.object.rows.length === 1));
      assert.ok(w.events[0].object.columnDefinitions.length > 0);
      assert.deepEqual(w.events[1].object.columnDefinitions, []);
      w.close();
    });
  });

  // Compaction last: it invalidates every older resourceVersion in this store.
  describe('compaction', () => {
    it('answers a watch from a compacted resourceVersion with 410 Expired', async () => {
      const old = b.store.revision();
      await req('POST', CMS, cm('c-1'));
      await req('POST', CMS, cm('c-2'));
      const compacted = b.store.compact(0);
      assert.equal(compacted, b.store.revision());
      const w = await watch(`${CMS}?watch=true&resourceVersion=${old}`);
      assert.equal(w.status, 200);
      await w.ended;
      assert.equal(w.events.length, 1, JSON.stringify(w.events));
      assert.equal(w.events[0].type, 'ERROR');
      const s = w.events[0].object;
      assert.equal(s.kind, 'Status');
      assert.equal(s.code, 410);
      assert.equal(s.reason, 'Expired');
      assert.match(s.message, new RegExp(`^too old resource version: ${old} \\(\\d+\\)$`));
      // A watch from the current revision still works.
      const ok = await watch(`${CMS}?watch=true&resourceVersion=${b.store.revision()}`);
      await req('POST', CMS, cm('c-3'));
      await ok.waitFor((evs) => evs.length >= 1, 3000, 'the live event');
      assert.deepEqual(names(ok.events), ['ADDED c-3']);
      ok.close();
    });

    it('answers a continue token from before the compaction with 410', async () => {
      const page = await req('GET', `${CMS}?limit=1`);
      assert.ok(page.body.metadata.continue);
      await req('POST', CMS, cm('c-4'));
      b.store.compact(0);
      assertStatus(await req('GET', `${CMS}?limit=1&continue=${encodeURIComponent(page.body.metadata.continue)}`), 410, 'Expired', /continue parameter is too old/);
    });
  });

  describe('watch options', () => {
    it('validates resourceVersionMatch and sendInitialEvents as upstream does', async () => {
      assertStatus(await req('GET', `${CMS}?watch=true&resourceVersion=0&resourceVersionMatch=NotOlderThan`), 422, 'Invalid',
        'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided');
      assertStatus(await req('GET', `${CMS}?watch=true&sendInitialEvents=true`), 422, 'Invalid', /sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan/);
    });
  });
});
