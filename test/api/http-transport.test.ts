// The HTTP transport as kube-apiserver frames it and as a browser on the same machine cannot abuse it: content
// types upstream refuses (415), Host names that are not the server's (DNS rebinding), error bodies byte for byte.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { assertPageNotFound, assertStatus, useBonsai } from './http.js';
import { maxBodyBytes } from '../../src/api/body-reader.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

/** Sends `request` as raw bytes and returns the whole answer (the server closes after it, or after `Connection: close`). */
function raw(port: number, request: string): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    let data = '';
    s.on('data', (d) => (data += d.toString('latin1')));
    s.on('end', () => {
      const at = data.indexOf('\r\n\r\n');
      const head = data.slice(0, at);
      resolve({ status: Number(head.split(' ')[1]), head, body: data.slice(at + 4) });
    });
    s.on('error', reject);
    s.write(request);
  });
}

describe('HTTP transport', () => {
  const { env, req } = useBonsai();

  describe('content types a web page can send', () => {
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/merge-patch+json', 'application/x-yaml']) {
      it(`refuses a create sent as ${type} with 415, storing nothing`, async () => {
        const r = await req('POST', CMS, undefined, { raw: cm('from-form'), contentType: type });
        const s = assertStatus(r, 415, 'UnsupportedMediaType', 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf');
        assert.equal(s.details, undefined);
        assert.equal((await req('GET', `${CMS}/from-form`)).status, 404);
      });
    }

    it('refuses an update and a PATCH of another type as upstream (the router names no types for PATCH)', async () => {
      assert.equal((await req('POST', CMS, undefined, { raw: cm('target') })).status, 201);
      assertStatus(await req('PUT', `${CMS}/target`, undefined, { raw: cm('target'), contentType: 'text/plain' }), 415, 'UnsupportedMediaType');
      const p = await req('PATCH', `${CMS}/target`, undefined, { raw: '{"data":{"k":"pwned"}}', contentType: 'text/plain' });
      assert.equal(p.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"415: Unsupported Media Type","reason":"UnsupportedMediaType","details":{},"code":415}\n');
      assert.equal((await req('GET', `${CMS}/target`)).body.data.k, 'v');
    });

    it('still takes JSON with no Content-Type, YAML and a charset parameter', async () => {
      assert.equal((await req('POST', CMS, undefined, { raw: cm('no-type'), headers: { 'content-type': '' } })).status, 201);
      assert.equal((await req('POST', CMS, undefined, { raw: cm('charset'), contentType: 'application/json; charset=utf-8' })).status, 201);
      assert.equal((await req('POST', CMS, undefined, { raw: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: yml}\n', contentType: 'application/yaml' })).status, 201);
    });

    it('ignores the type of an empty DELETE body, refuses a form-encoded one', async () => {
      await req('POST', CMS, undefined, { raw: cm('del-a') });
      await req('POST', CMS, undefined, { raw: cm('del-b') });
      assert.equal((await req('DELETE', `${CMS}/del-a`, undefined, { raw: '', contentType: 'text/plain' })).status, 200);
      assertStatus(await req('DELETE', `${CMS}/del-b`, undefined, { raw: 'propagationPolicy=Orphan', contentType: 'application/x-www-form-urlencoded' }), 415, 'UnsupportedMediaType');
    });
  });

  describe('Host header (DNS rebinding)', () => {
    const get = (host: string | undefined, version = '1.1') =>
      raw(env.b.port, `GET /api/v1/namespaces/default/secrets HTTP/${version}\r\n${host === undefined ? '' : `Host: ${host}\r\n`}Connection: close\r\n\r\n`);

    for (const host of ['127.0.0.1', '127.0.0.1:1', 'localhost', 'LOCALHOST:6443', 'localhost.', '[::1]:6443', '10.1.2.3:80']) {
      it(`serves Host ${host}`, async () => {
        const r = await get(host.replace(':6443', `:${env.b.port}`));
        assert.equal(r.status, 200, r.head + r.body);
        assert.match(r.body, /"kind":"SecretList"/);
      });
    }

    for (const host of ['evil.example', `evil.example:${0}`, '127.0.0.1.nip.io', 'localhost.evil.example', 'kubernetes']) {
      it(`refuses Host ${host} with 403 before serving anything`, async () => {
        const r = await get(host);
        assert.equal(r.status, 403, r.head);
        const s = JSON.parse(r.body) as { reason: string; message: string; code: number };
        assert.equal(s.reason, 'Forbidden');
        assert.equal(s.code, 403);
        assert.match(s.message, new RegExp(`^host "${host.split(':')[0].replace(/\./g, '\\.')}" is not allowed`));
        assert.doesNotMatch(r.body, /SecretList/);
      });
    }

    it('serves an HTTP/1.0 request without Host; Node refuses HTTP/1.1 without one', async () => {
      assert.equal((await get(undefined, '1.0')).status, 200);
      assert.equal((await get(undefined, '1.1')).status, 400);
    });

    it('serves names added by --allowed-host (or by the TLS set-up) once added', async () => {
      assert.equal((await get('bonsai.internal')).status, 403);
      env.b.hosts.allow('Bonsai.Internal');
      assert.equal((await get(`bonsai.internal:${env.b.port}`)).status, 200);
    });
  });

  describe('over-size bodies', () => {
    const tooLarge = '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}\n';

    it('drains a 10 MB upload and answers the 413 Status (fetch sees no EPIPE)', async () => {
      const body = Buffer.alloc(10 * 1024 * 1024, 0x20);
      const r = await req('POST', CMS, undefined, { raw: body });
      assert.equal(r.status, 413);
      assert.equal(r.text, tooLarge);
    });

    it('keeps the connection of a drained upload for the next request', async () => {
      const size = 5 * 1024 * 1024;
      const head = `POST ${CMS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\n\r\n`;
      const next = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`;
      const r = await raw(env.b.port, head + ' '.repeat(size) + next);
      assert.equal(r.status, 413);
      assert.ok(r.body.includes('"reason":"RequestEntityTooLarge"'), r.body.slice(0, 300));
      assert.match(r.body, /HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nok$/);
    });

    it('refuses a declared length past the drain bound at once, closing the connection', async () => {
      const r = await raw(env.b.port, `POST ${CMS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\n\r\n{}`);
      assert.equal(r.status, 413);
      assert.match(r.head, /connection: close/i);
      assert.ok(r.body.endsWith(tooLarge));
    });

    it('reads a body just under the limit (it reaches validation: a ConfigMap holds 1 MiB)', async () => {
      const data = 'x'.repeat(maxBodyBytes - 200);
      const r = await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'almost-full' }, data: { d: data } });
      assertStatus(r, 422, 'Invalid', /Too long: may not be more than 1048576 bytes/);
    });
  });

  describe('bodies byte for byte', () => {
    it('writes a Status with upstream key order, a newline and application/json without charset', async () => {
      const r = await req('GET', `${CMS}/missing`);
      assert.equal(r.text, '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"missing\\" not found","reason":"NotFound","details":{"name":"missing","kind":"configmaps"},"code":404}\n');
      assert.equal(r.headers.get('content-type'), 'application/json');
    });

    it('ends objects, lists, tables and discovery in a newline, with application/json', async () => {
      await req('POST', CMS, undefined, { raw: cm('framed') });
      const table = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
      for (const [path, accept] of [[`${CMS}/framed`], [CMS], [CMS, table], ['/api/v1'], ['/apis'], ['/api'], ['/apis/apps']] as Array<[string, string?]>) {
        const r = await req('GET', path, undefined, accept ? { accept } : {});
        assert.equal(r.status, 200, path);
        assert.equal(r.headers.get('content-type'), 'application/json', path);
        assert.ok(r.text.endsWith('}\n') && !r.text.endsWith('\n\n'), `${path}: ${JSON.stringify(r.text.slice(-20))}`);
      }
      const created = await req('POST', CMS, undefined, { raw: cm('framed-2') });
      assert.ok(created.text.endsWith('}\n'));
      const agg = await req('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
      assert.ok(agg.text.endsWith('}\n'));
    });

    it('escapes <, > and & in error bodies as Go does', async () => {
      const r = await req('GET', `${CMS}/a%3Cb%3E%26c`);
      assert.match(r.text, /"message":"configmaps \\"a\\u003cb\\u003e\\u0026c\\" not found"/);
      assert.equal(JSON.parse(r.text).details.name, 'a<b>&c');
    });

    it('indents for ?pretty=true and for curl, Wget and browsers, as upstream (no final newline)', async () => {
      const compact = await req('GET', `${CMS}/framed`);
      for (const opts of [{ headers: { 'user-agent': 'curl/8.5.0' } }, { headers: { 'user-agent': 'Mozilla/5.0 (X11)' } }, {}]) {
        const r = await req('GET', `${CMS}/framed${Object.keys(opts).length ? '' : '?pretty=true'}`, undefined, opts);
        assert.equal(r.text, JSON.stringify(compact.body, null, 2));
      }
      const off = await req('GET', `${CMS}/framed?pretty=false`, undefined, { headers: { 'user-agent': 'curl/8.5.0' } });
      assert.equal(off.text, compact.text);
      const err = await req('GET', `${CMS}/missing`, undefined, { headers: { 'user-agent': 'curl/8.5.0' } });
      assert.ok(err.text.startsWith('{\n  "kind": "Status",\n  "apiVersion": "v1",\n  "metadata": {},\n  "status": "Failure",'), err.text);
    });

    it('writes /version indented without a newline, health checks as Go plain text', async () => {
      const v = await req('GET', '/version');
      assert.equal(v.headers.get('content-type'), 'application/json');
      assert.ok(v.text.startsWith('{\n  "major": '), v.text);
      assert.ok(v.text.endsWith('}'));
      const h = await req('GET', '/healthz');
      assert.equal(h.text, 'ok');
      assert.equal(h.headers.get('content-type'), 'text/plain; charset=utf-8');
    });

    it('answers paths outside every API with 404 page not found', async () => {
      assertPageNotFound(await req('GET', '/foo'));
      assertPageNotFound(await req('POST', '/apis/example.com/v1/namespaces/default/widgets', {}));
    });
  });
});
