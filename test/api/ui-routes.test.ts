// The dashboard's routes: the bundle under /ui/ (only its three files), /ui redirecting, served to anyone (it is
// public code) while what it shows still takes the API's own authorization; `ui: false` serves nothing. Paths are
// hostile input: traversal, encoded separators, prototype keys and overlong names serve nothing.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useBonsai } from './http.js';

describe('dashboard routes', () => {
  const { env } = useBonsai({ authorizationMode: 'RBAC', anonymousAuth: false });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${env.b.url}${path}`, { redirect: 'manual', headers });

  it('serves index.html, app.js and app.css; /ui redirects to /ui/', async () => {
    const r = await get('/ui');
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/ui/');
    const index = await get('/ui/');
    assert.equal(index.status, 200);
    assert.equal(index.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
    assert.match(index.headers.get('content-security-policy') ?? '', /default-src 'self'/);
    assert.match(await index.text(), /src="app\.js"/);
    const js = await get('/ui/app.js');
    assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.ok((await js.text()).length > 1000);
    assert.equal((await get('/ui/app.css')).headers.get('content-type'), 'text/css; charset=utf-8');
    assert.equal(env.b.uiUrl, `${env.b.url}/ui/`);
  });

  it('is public, while the API behind it still takes credentials', async () => {
    // anonymousAuth is off: the API answers 401 without a token, the bundle does not need one.
    assert.equal((await get('/ui/')).status, 200);
    assert.equal((await get('/api/v1/nodes')).status, 401);
    assert.equal((await get('/api/v1/nodes', { Authorization: 'Bearer not-a-token' })).status, 401);
    assert.equal((await get('/api/v1/nodes', { Authorization: `Bearer ${env.b.credentials.token}` })).status, 200);
    // Only reads are public: a write to a dashboard path goes through the chain.
    assert.equal((await fetch(`${env.b.url}/ui/app.js`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status, 401);
  });

  for (const path of [
    '/ui/index.htm', '/ui/../package.json', '/ui/..%2F..%2Fpackage.json', '/ui/%2e%2e%2fsrc', '/ui/__proto__', '/ui/constructor',
    '/ui/prototype', '/ui/hasOwnProperty', `/ui/${'a'.repeat(5000)}`, '/ui/app.js%00', '/ui/app.js/x', '/ui//etc/passwd', '/uix',
  ]) {
    it(`404 for ${path.slice(0, 60)}`, async () => {
      const r = await get(path);
      // 404 from the dashboard's routes; 401 where the client normalized the path out of /ui/; 414 for overlong URLs.
      assert.ok([401, 404, 414].includes(r.status), `${path.slice(0, 60)}: ${r.status}`);
      assert.doesNotMatch(await r.text(), /"name"\s*:\s*"bonsai"|root:/);
    });
  }
});

describe('dashboard off (ui: false)', () => {
  const { env } = useBonsai({ ui: false });
  it('serves no /ui/ and names no dashboard URL', async () => {
    assert.equal((await fetch(`${env.b.url}/ui/`)).status, 404);
    assert.equal((await fetch(`${env.b.url}/ui/app.js`)).status, 404);
    assert.equal(env.b.uiUrl, undefined);
  });
});
