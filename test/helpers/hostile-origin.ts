// Hostile Origin and Sec-Fetch-Site headers (issue 22): writes and upgrades a browser says come from another origin
// are refused with a 403 Status before anything else looks at them; reads, clients sending no Origin and the
// server's own origin (the Host header names it) pass. The suite's server allows no origin with
// --cors-allowed-origins. Origin values that are garbage, too long, look-alikes or named like prototype keys.
import { CMS, NS, uniq, type HostileCase } from './hostile-cases.js';

const refused = { expectCode: 403, expectReason: 'Forbidden', expectMessage: /^cross-origin request refused: / };
const cm = () => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${uniq('origin')}"}}`;

export function originCases(): HostileCase[] {
  // Every request carries the Host the client sets (127.0.0.1:PORT) unless a case names another one.
  const post = (name: string, headers: Record<string, string>, extra: Partial<HostileCase> = refused): HostileCase =>
    ({ name, method: 'POST', path: CMS, headers, body: cm(), ...extra });
  const created = { expectCode: 201 };
  const exec = `/api/v1/namespaces/${NS}/pods/pod1/exec?command=cat&command=/etc/hostname&stdout=true`;
  const wsUpgrade = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': 'v5.channel.k8s.io' };
  return [
    post('no Content-Type, another origin (a no-cors fetch)', { origin: 'http://evil.example' }),
    post('Origin null (a sandboxed frame or a file)', { origin: 'null' }),
    post('Origin __proto__', { origin: '__proto__' }),
    post('Origin constructor, JSON Content-Type', { origin: 'constructor', 'content-type': 'application/json' }),
    post('Origin of 8,000 characters', { origin: `http://${'a'.repeat(8000)}.example` }),
    post('Origin with latin-1 bytes', { origin: 'http://\u00e9vil.example' }),
    post('Origin naming the server as userinfo', { origin: 'http://127.0.0.1@evil.example' }),
    post('Origin with a path', { origin: 'http://localhost:6443/ui/', host: 'localhost:6443' }),
    post('Origin of another scheme, same host', { origin: 'https://localhost:6443', host: 'localhost:6443' }),
    post('Origin of another port, same host', { origin: 'http://localhost:6444', host: 'localhost:6443' }),
    post('Origin javascript:', { origin: 'javascript:alert(1)' }),
    post('two origins in one header', { origin: 'http://localhost:6443 http://evil.example', host: 'localhost:6443' }),
    post('Sec-Fetch-Site cross-site, no Origin', { 'sec-fetch-site': 'cross-site' }),
    post('Sec-Fetch-Site same-site, no Origin', { 'sec-fetch-site': 'same-site' }),
    post('own origin but marked cross-site', { origin: 'http://localhost:6443', host: 'localhost:6443', 'sec-fetch-site': 'cross-site' }),
    post('the same origin (the dashboard)', { origin: 'http://localhost:6443', host: 'localhost:6443', 'sec-fetch-site': 'same-origin', 'content-type': 'application/json' }, created),
    post('the same origin in upper case, default port', { origin: 'HTTP://LOCALHOST', host: 'localhost:80' }, created),
    post('no Origin (curl, kubectl, clients)', {}, created),
    post('Sec-Fetch-Site none (typed by the user)', { 'sec-fetch-site': 'none' }, created),
    post('Sec-Fetch-Site __proto__', { 'sec-fetch-site': '__proto__' }, created),
    { name: 'PUT from another origin', method: 'PUT', path: `${CMS}/target`, headers: { origin: 'http://evil.example' }, body: '{}', ...refused },
    { name: 'PATCH from another origin', method: 'PATCH', path: `${CMS}/target`, headers: { origin: 'http://evil.example', 'content-type': 'application/merge-patch+json' }, body: '{}', ...refused },
    { name: 'DELETE from another origin', method: 'DELETE', path: `${CMS}/target`, headers: { origin: 'http://evil.example' }, ...refused },
    { name: 'a custom method from another origin', method: 'PROPFIND', path: CMS, headers: { origin: 'http://evil.example' }, ...refused },
    { name: 'clock change from another origin', method: 'POST', path: '/bonsai/v1/clock', headers: { origin: 'http://evil.example' }, body: '{"action":"pause"}', ...refused },
    { name: 'exec WebSocket upgrade from another origin', method: 'GET', path: exec, headers: { ...wsUpgrade, origin: 'http://evil.example' }, ...refused },
    { name: 'exec WebSocket upgrade marked cross-site', method: 'GET', path: exec, headers: { ...wsUpgrade, 'sec-fetch-site': 'cross-site' }, ...refused },
    { name: 'port-forward SPDY upgrade from another origin', method: 'POST', path: `/api/v1/namespaces/${NS}/pods/pod1/portforward`, headers: { connection: 'Upgrade', upgrade: 'SPDY/3.1', origin: 'http://evil.example' }, ...refused },
    { name: 'proxy upgrade from another origin', method: 'GET', path: `/api/v1/namespaces/${NS}/pods/pod1/proxy/`, headers: { ...wsUpgrade, origin: 'http://evil.example' }, ...refused },
    { name: 'a read from another origin (answered, unreadable without CORS)', method: 'GET', path: `${CMS}/target`, headers: { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }, expectCode: 200 },
    { name: 'a preflight from another origin', method: 'OPTIONS', path: CMS, headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' }, sameAs: { method: 'OPTIONS', path: CMS } },
  ];
}
