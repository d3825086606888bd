// The Origin check (src/api/origin-check.ts) as a table: which browser requests are refused, which pass, which get
// CORS; and how `--cors-allowed-origins` patterns are read (refused when empty, invalid or not pinned to the host).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { compileOriginPatterns, judgeOrigin, normalOrigin, type OriginPattern } from '../../src/api/origin-check.js';

const host = '127.0.0.1:6443';
const verdict = (method: string, headers: IncomingHttpHeaders, allowed: OriginPattern[] = [], tls = false) =>
  judgeOrigin({ method, headers: { host, ...headers }, tls }, allowed).kind;

describe('origin check', () => {
  it('refuses writes and upgrades a browser sends from another origin', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
      assert.equal(verdict(method, { origin: 'http://evil.example' }), 'refuse', method);
      assert.equal(verdict(method, { origin: 'null' }), 'refuse', `${method} from an opaque origin`);
      assert.equal(verdict(method, { 'sec-fetch-site': 'cross-site' }), 'refuse', `${method} marked cross-site`);
      assert.equal(verdict(method, { 'sec-fetch-site': 'same-site' }), 'refuse', `${method} marked same-site`);
    }
    assert.equal(verdict('GET', { origin: 'http://evil.example', upgrade: 'websocket' }), 'refuse');
    assert.equal(verdict('POST', { origin: 'http://evil.example', upgrade: 'SPDY/3.1' }), 'refuse');
    assert.equal(verdict('GET', { 'sec-fetch-site': 'cross-site', upgrade: 'websocket' }), 'refuse');
  });

  it('tells another port, scheme or a look-alike from the server\'s own origin', () => {
    for (const origin of ['http://127.0.0.1:6444', 'https://127.0.0.1:6443', 'http://127.0.0.1', 'http://127.0.0.1:6443/', 'http://127.0.0.1:6443@evil.example',
      'http://evil.example#127.0.0.1:6443', 'http://127.0.0.1:6443 ', 'file://', 'http://localhost:6443', 'x'.repeat(5000)]) {
      assert.equal(verdict('POST', { origin }), 'refuse', origin.slice(0, 60));
    }
    // Same origin but marked as coming from elsewhere: no browser sends that; refused.
    assert.equal(verdict('POST', { origin: 'http://127.0.0.1:6443', 'sec-fetch-site': 'cross-site' }), 'refuse');
  });

  it('lets through what no browser sends cross-origin: reads, clients without Origin, the same origin', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) assert.equal(verdict(method, { origin: 'http://evil.example', 'sec-fetch-site': 'cross-site' }), 'pass', method);
    assert.equal(verdict('POST', {}), 'pass', 'curl, kubectl and client libraries send no Origin');
    assert.equal(verdict('GET', { upgrade: 'websocket' }), 'pass');
    assert.equal(verdict('POST', { 'sec-fetch-site': 'same-origin' }), 'pass');
    assert.equal(verdict('POST', { 'sec-fetch-site': 'none' }), 'pass', 'typed by the user');
    assert.equal(verdict('POST', { origin: 'http://127.0.0.1:6443', 'sec-fetch-site': 'same-origin' }), 'pass', 'the dashboard');
    assert.equal(verdict('POST', { origin: 'HTTP://127.0.0.1:6443' }), 'pass', 'case does not matter');
    assert.equal(verdict('GET', { origin: 'http://127.0.0.1:6443', upgrade: 'websocket' }), 'pass');
    assert.equal(judgeOrigin({ method: 'POST', headers: { host: 'LocalHost', origin: 'http://localhost:80' }, tls: false }, []).kind, 'pass', 'default port');
    assert.equal(judgeOrigin({ method: 'POST', headers: { host: 'localhost:443', origin: 'https://localhost' }, tls: true }, []).kind, 'pass', 'TLS: https origin');
    assert.equal(judgeOrigin({ method: 'POST', headers: { host: '[::1]:6443', origin: 'http://[::1]:6443' }, tls: false }, []).kind, 'pass', 'IPv6');
    assert.equal(judgeOrigin({ method: 'POST', headers: { origin: 'http://127.0.0.1:6443' }, tls: false }, []).kind, 'refuse', 'no Host: no own origin to match');
  });

  it('answers CORS for allowed origins, whatever the method', async () => {
    const allowed = await compileOriginPatterns(['^https://dash\\.example(:|$)']);
    for (const method of ['GET', 'POST', 'OPTIONS', 'DELETE']) assert.equal(verdict(method, { origin: 'https://dash.example' }, allowed), 'cors', method);
    assert.equal(verdict('POST', { origin: 'https://dash.example:8443', 'sec-fetch-site': 'cross-site' }, allowed), 'cors');
    assert.equal(verdict('POST', { origin: 'https://dash.example.evil.com' }, allowed), 'refuse');
    assert.equal(verdict('POST', { origin: 'http://dash.example' }, allowed), 'refuse');
    assert.equal(verdict('GET', { origin: 'https://evil.example' }, allowed), 'pass');
    // A matching value that could not be echoed in a header (latin-1, spaces) gets no CORS.
    assert.equal(verdict('POST', { origin: 'https://dash.example:\u00e9' }, allowed), 'refuse');
    assert.equal(verdict('POST', { origin: 'https://dash.example: x' }, allowed), 'refuse');
  });

  it('normalizes origins', () => {
    assert.equal(normalOrigin('HTTPS://Example.COM:443'), 'https://example.com');
    assert.equal(normalOrigin('http://example.com:443'), 'http://example.com:443');
    assert.equal(normalOrigin('null'), undefined);
    assert.equal(normalOrigin('http://a/b'), undefined);
    assert.equal(normalOrigin('ws://a'), undefined);
  });
});

describe('--cors-allowed-origins patterns', () => {
  it('accepts patterns pinned to the host, as kube-apiserver does', async () => {
    for (const p of ['^http://foo.com$', '^http://foo.com', '://foo.com$', '//foo.com$', '//foo.com(:|$)', '(^foo.com$)']) {
      assert.equal((await compileOriginPatterns([p])).length, 1, p);
    }
    assert.deepEqual(await compileOriginPatterns([]), []);
  });

  it('refuses empty, invalid and unpinned patterns with a message naming them', async () => {
    await assert.rejects(compileOriginPatterns(['^http://a$', '']), /^Error: --cors-allowed-origins: empty pattern; anchor each pattern/);
    for (const p of ['^foo.com', '//foo.com', 'foo.com$', 'foo.com(:|$)']) {
      await assert.rejects(compileOriginPatterns([p]), new RegExp(`--cors-allowed-origins: "${p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" does not pin the start and end of the host`), p);
    }
    await assert.rejects(compileOriginPatterns(['^http://(a$']), /--cors-allowed-origins: "\^http:\/\/\(a\$" is not a valid regular expression: error parsing regexp: missing closing \)/);
    // JavaScript-only syntax is no Go regular expression.
    await assert.rejects(compileOriginPatterns(['^http://(?<=a)b$']), /is not a valid regular expression/);
  });

  it('matches in linear time: a pattern that backtracks exponentially in JavaScript answers at once', async () => {
    const [p] = await compileOriginPatterns(['^http://(a+)+$']);
    assert.equal(p.test(`http://${'a'.repeat(900)}!`), false);
    assert.equal(verdict('POST', { origin: `http://${'a'.repeat(1000)}!` }, [p]), 'refuse');
  });
});
