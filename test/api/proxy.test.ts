// pods/proxy and services/proxy with hostile ids, paths and headers: bounded, no prototype keys reached, upstream's
// errors; and the nginx access line a proxied request prints, with a quoting user agent escaped.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertStatus, useBonsai } from './http.js';
import { eventually } from '../helpers/kubectl.js';

const NS = '/api/v1/namespaces/default';

describe('pods/proxy and services/proxy', () => {
  const { req } = useBonsai({ cluster: { nodes: 1 } });

  it('answers through a running nginx pod and its Service, and refuses hostile ids and paths', async () => {
    assert.equal((await req('POST', `${NS}/pods`, { metadata: { name: 'web', labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.25.3', ports: [{ name: 'http', containerPort: 80 }] }] } })).status, 201);
    assert.equal((await req('POST', `${NS}/services`, { metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 8080, targetPort: 'http' }] } })).status, 201);
    await eventually(async () => (await req('GET', `${NS}/services/web:http/proxy/`)).status === 200, 10_000, 'the service answering');
    const byNumber = await req('GET', `${NS}/services/http:web:8080/proxy/index.html?x=1`, undefined, { headers: { 'user-agent': 'evil"agent' } });
    assert.equal(byNumber.status, 200);
    assert.match(byNumber.text, /Welcome to nginx!/);
    const named = await req('GET', `${NS}/pods/web:http/proxy/`);
    assert.equal(named.status, 200);
    const logs = await req('GET', `${NS}/pods/web/log`);
    assert.match(logs.text, /^10\.244\.0\.1 - - \[\d\d\/\w{3}\/\d{4}:\d\d:\d\d:\d\d \+0000\] "GET \/index\.html\?x=1 HTTP\/1\.1" 200 \d+ "-" "evil\\"agent" "-"$/m);
    assert.equal((await req('HEAD', `${NS}/pods/web/proxy/`)).text, '');

    assertStatus(await req('GET', `${NS}/pods/ftp:web:80/proxy/`), 400, 'BadRequest', 'invalid pod request "ftp:web:80"');
    assertStatus(await req('GET', `${NS}/pods/web:99999/proxy/`), 400, 'BadRequest', 'invalid pod request "web:99999"');
    assertStatus(await req('GET', `${NS}/pods/web:nope/proxy/`), 400, 'BadRequest', 'invalid pod request "web:nope"');
    assertStatus(await req('GET', `${NS}/pods/__proto__:80/proxy/`), 404, 'NotFound', 'pods "__proto__" not found');
    assertStatus(await req('GET', `${NS}/services/constructor/proxy/`), 404, 'NotFound', 'services "constructor" not found');
    assertStatus(await req('GET', `${NS}/services/web:__proto__/proxy/`), 503, 'ServiceUnavailable', 'no endpoints available for service "web:__proto__"');
    assertStatus(await req('GET', `${NS}/pods/web/proxy/${'a'.repeat(9000)}`), 400, 'BadRequest', 'proxy path too long');
    assertStatus(await req('GET', `${NS}/pods/web:81/proxy/`), 503, 'ServiceUnavailable', /connect: connection refused$/);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
