// Issue 22 item 2: a web page on another site must not drive the default server (plain HTTP, anonymous = admin).
// The repros: a `no-cors` POST with no Content-Type creating a ClusterRoleBinding, writes to pods, evictions,
// TokenRequests and the clock, and an exec upgrade whose output the page reads. Each is refused with a 403 Status
// when the browser names another origin, and works as before without Origin (curl, kubectl, clients) or from the
// server's own origin (the dashboard); `--cors-allowed-origins` lets a named origin in, with upstream's CORS headers.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { connect } from 'node:net';
import { assertStatus, client, useBonsai } from './http.js';
import { installContainerRuntime } from '../../src/api/streaming/runtime.js';
import { standInRuntime } from '../helpers/stand-in-runtime.js';

const evil = { origin: 'http://evil.example' };
const refused = /^cross-origin request refused: Origin "http:\/\/evil\.example" is not this server's origin \(http:\/\/127\.0\.0\.1:\d+\): .*--cors-allowed-origins/;
const binding = (name: string) => JSON.stringify({
  apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
  subjects: [{ kind: 'Group', name: 'system:unauthenticated', apiGroup: 'rbac.authorization.k8s.io' }],
});
const CRBS = '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings';

/** What a page's `fetch(url, {method: 'POST', mode: 'no-cors', body: new Blob([json])})` sends: no Content-Type, anonymous. */
async function pagePost(base: string, path: string, body: string, headers: Record<string, string>): Promise<Response> {
  return fetch(base + path, { method: 'POST', headers, body: new Blob([body]) });
}

describe('cross-origin requests from web pages', () => {
  const { env, req } = useBonsai({ cluster: { nodes: 1 }, corsAllowedOrigins: ['^https://dash\\.example(:|$)'] });
  const base = () => env.b.url;
  const anon = client(base);

  before(async () => {
    installContainerRuntime(env.b.registry, standInRuntime);
    assert.equal((await req('POST', '/api/v1/namespaces/kube-system/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } })).status, 201);
    await env.b.waitFor<{ status?: { containerStatuses?: Array<{ state?: { running?: unknown } }> } }>('pods', 'kube-system', 'p', (p) => !!p.status?.containerStatuses?.[0]?.state?.running, { timeoutMs: 60_000 });
  });

  it('refuses the no-Content-Type POST of a ClusterRoleBinding from another origin, and creates nothing', async () => {
    const r = await pagePost(base(), CRBS, binding('pwned'), evil);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
    assertStatus({ status: r.status, headers: r.headers, text: '', body: await r.json() }, 403, 'Forbidden', refused);
    assert.equal((await req('GET', `${CRBS}/pwned`)).status, 404);
    for (const origin of ['null', 'http://evil.example:80', `https://127.0.0.1:${env.b.port}`, `http://localhost:${env.b.port}`]) {
      assert.equal((await pagePost(base(), CRBS, binding('pwned'), { origin })).status, 403, origin);
    }
    for (const site of ['cross-site', 'same-site']) {
      const s = await pagePost(base(), CRBS, binding('pwned'), { 'sec-fetch-site': site });
      assert.equal(s.status, 403);
      assert.match(((await s.json()) as { message: string }).message, new RegExp(`^cross-origin request refused: the browser sent it from another origin \\(Sec-Fetch-Site: ${site}\\)`));
    }
  });

  it('still reads a POST with no Content-Type as JSON for clients that send no Origin, and for the same origin', async () => {
    assert.equal((await pagePost(base(), CRBS, binding('from-curl'), {})).status, 201);
    assert.equal((await pagePost(base(), CRBS, binding('from-dashboard'), { origin: base(), 'sec-fetch-site': 'same-origin' })).status, 201);
    assert.equal((await pagePost(base(), CRBS, binding('typed'), { 'sec-fetch-site': 'none' })).status, 201);
  });

  it('refuses every other write the issue names: pods, evictions, TokenRequests, deletes, the clock', async () => {
    const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'thief' }, spec: { containers: [{ name: 'c', image: 'x' }], volumes: [{ name: 's', secret: { secretName: 'any' } }] } });
    const writes: Array<[string, string, string]> = [
      ['POST', '/api/v1/namespaces/kube-system/pods', pod],
      ['POST', '/api/v1/namespaces/kube-system/pods/p/eviction', '{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}'],
      ['POST', '/api/v1/namespaces/kube-system/serviceaccounts/default/token', '{"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}}'],
      ['POST', '/bonsai/v1/clock', '{"action":"pause"}'],
      ['DELETE', '/api/v1/namespaces/kube-system/pods/p', ''],
      ['PATCH', '/api/v1/namespaces/kube-system/pods/p', '{}'],
      ['PUT', '/api/v1/namespaces/kube-system/pods/p', pod],
    ];
    for (const [method, path, body] of writes) {
      const r = await fetch(base() + path, { method, headers: evil, body: body ? new Blob([body]) : undefined });
      assert.equal(r.status, 403, `${method} ${path}: ${await r.text()}`);
    }
    assert.equal((await req('GET', '/bonsai/v1/clock')).body.paused, false);
    assert.equal((await req('GET', '/api/v1/namespaces/kube-system/pods/thief')).status, 404);
    assert.equal((await req('GET', '/api/v1/namespaces/kube-system/pods/p')).status, 200);
  });

  it('lets reads through without CORS headers, so the page cannot read the answer', async () => {
    const r = await fetch(`${base()}/api/v1/namespaces/kube-system/secrets`, { headers: { ...evil, 'sec-fetch-site': 'cross-site' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), null);
  });

  it('refuses a cross-origin exec WebSocket before the 101, and serves it without Origin or from the same origin', async () => {
    const url = `${base().replace(/^http/, 'ws')}/api/v1/namespaces/kube-system/pods/p/exec?command=echo&command=secret&stdout=true`;
    const open = (origin?: string) => new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(url, ['v5.channel.k8s.io'], origin ? { origin } : {});
      ws.on('unexpected-response', (_r, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.on('upgrade', () => {
        resolve(101);
        ws.terminate();
      });
      ws.on('error', reject);
    });
    assert.equal(await open('http://evil.example'), 403);
    assert.equal(await open('null'), 403);
    assert.equal(await open(), 101);
    assert.equal(await open(base()), 101);
    assert.equal(await open('https://dash.example'), 101, 'an allowed origin');
  });

  it('refuses an Origin on the SPDY upgrade too (browsers cannot speak it, but the header is checked)', async () => {
    const url = new URL(base());
    const head = (origin: string) => new Promise<string>((resolve, reject) => {
      const s = connect(Number(url.port), url.hostname);
      let buf = '';
      s.on('data', (d: Buffer) => {
        buf += d.toString('latin1');
        if (buf.includes('\r\n\r\n')) {
          resolve(buf);
          s.destroy();
        }
      });
      s.on('error', reject);
      s.write(`POST /api/v1/namespaces/kube-system/pods/p/exec?command=echo&stdout=true HTTP/1.1\r\nHost: ${url.host}\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: v4.channel.k8s.io\r\n${origin ? `Origin: ${origin}\r\n` : ''}Content-Length: 0\r\n\r\n`);
    });
    assert.match(await head('http://evil.example'), /^HTTP\/1.1 403 /);
    assert.match(await head(''), /^HTTP\/1.1 101 /);
  });

  describe('with --cors-allowed-origins', () => {
    const dash = { origin: 'https://dash.example' };
    it('lets an allowed origin write, with upstream\'s CORS headers on the answer', async () => {
      const r = await pagePost(base(), CRBS, binding('allowed'), dash);
      assert.equal(r.status, 201, await r.text());
      assert.equal(r.headers.get('access-control-allow-origin'), 'https://dash.example');
      assert.equal(r.headers.get('access-control-allow-credentials'), 'true');
      assert.equal(r.headers.get('access-control-allow-methods'), 'POST, GET, OPTIONS, PUT, DELETE, PATCH');
      assert.equal(r.headers.get('access-control-expose-headers'), 'Date');
      const g = await anon('GET', `${CRBS}/allowed`, undefined, { headers: dash });
      assert.equal(g.status, 200);
      assert.equal(g.headers.get('access-control-allow-origin'), 'https://dash.example');
    });

    it('answers an allowed origin\'s preflight with 204 before authentication, and no other origin\'s', async () => {
      const pre = await fetch(base() + CRBS, { method: 'OPTIONS', headers: { ...dash, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      assert.equal(pre.status, 204);
      assert.equal(await pre.text(), '');
      assert.equal(pre.headers.get('access-control-allow-origin'), 'https://dash.example');
      assert.equal(pre.headers.get('access-control-allow-headers'), 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since');
      const other = await fetch(base() + CRBS, { method: 'OPTIONS', headers: { ...evil, 'access-control-request-method': 'POST' } });
      assert.notEqual(other.status, 204);
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    });

    it('matches the whole host: a look-alike origin is refused', async () => {
      for (const origin of ['https://dash.example.evil.com', 'http://dash.example', 'https://xdash.example']) {
        assert.equal((await pagePost(base(), CRBS, binding('look-alike'), { origin })).status, 403, origin);
      }
    });
  });
});

describe('cross-origin refusal without --cors-allowed-origins', () => {
  const { env } = useBonsai({});
  it('answers no preflight and sends no CORS headers', async () => {
    const r = await fetch(`${env.b.url}/api/v1/namespaces`, { method: 'OPTIONS', headers: { origin: 'https://dash.example', 'access-control-request-method': 'POST' } });
    assert.equal(r.headers.get('access-control-allow-origin'), null);
    const w = await pagePost(env.b.url, CRBS, binding('x'), { origin: 'https://dash.example' });
    assert.equal(w.status, 403);
  });
});
