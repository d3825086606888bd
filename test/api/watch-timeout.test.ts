// timeoutSeconds of a watch as kube-apiserver reads it: a Go int64 of seconds turned into a time.Duration (which
// wraps past 2^63 ns), 0 for the server's default, a negative duration ends the stream at once. A value beyond
// Node's 2^31-1 ms timer limit must neither end the watch at once nor print a TimeoutOverflowWarning.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { watchTimeoutMs } from '../../src/api/watch-timeout.js';
import { assertStatus, client, openWatch, rootCaPublished, testStorage } from './http.js';
import { waitDeadline, within } from '../helpers/wait.js';

const NS = 'timeouts';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;

describe('watch timeoutSeconds', () => {
  let b: Bonsai;
  const req = client(() => b.url);
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);

  let storage: Awaited<ReturnType<typeof testStorage>> | undefined;
  before(async () => {
    process.on('warning', onWarning);
    storage = await testStorage();
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', compactEveryMs: 0, cluster: { nodes: 0 }, ...storage.options });
    assert.equal((await req('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status, 201);
    // The namespace's kube-root-ca.crt comes from a controller: once it is there, the watches below see only their own writes.
    await rootCaPublished(b, NS);
  });
  after(async () => {
    process.off('warning', onWarning);
    await b?.close();
    await storage?.stop();
  });

  it('keeps a watch open whose timeout exceeds a Node timer, without a warning', async () => {
    // 2^31 ms is about 2,147,484 s; 9,223,372,036 s is the longest Go duration (about 292 years).
    for (const seconds of ['2147484', '2147483648', '9223372036']) {
      const w = await openWatch(`${b.url}${CMS}?watch=true&resourceVersion=${b.store.revision()}&timeoutSeconds=${seconds}`);
      assert.equal(w.status, 200);
      assert.equal((await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `long-${seconds}` } })).status, 201);
      await w.waitFor((evs) => evs.length === 1, 3000, `the event on a ${seconds} s watch`);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(w.isEnded(), false, `a ${seconds} s watch is still open`);
      w.close();
    }
    assert.deepEqual(warnings, []);
  });

  it('ends the stream at once, with no event, for a negative duration (also one wrapped past 2^63 ns)', async () => {
    await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'present' } });
    // 9223372037 s and the int64 maximum both overflow Go's nanosecond Duration into a negative one.
    for (const seconds of ['-1', '-2147484', '9223372037', '9223372036854775807']) {
      const w = await openWatch(`${b.url}${CMS}?watch=true&timeoutSeconds=${seconds}`);
      assert.equal(w.status, 200);
      // Ended by the server, not by the default watch timeout (minutes away): a hang bound, not a speed check.
      await within(w.ended, 2000, `the stream for timeoutSeconds=${seconds} to end`);
      assert.deepEqual(w.events, [], `no event for timeoutSeconds=${seconds}`);
    }
    assert.deepEqual(warnings, []);
  });

  it('uses the default for 0 and refuses what is not an int64 with strconv wording', async () => {
    const w = await openWatch(`${b.url}${CMS}?watch=true&resourceVersion=${b.store.revision()}&timeoutSeconds=0`);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(w.isEnded(), false);
    w.close();
    assertStatus(await req('GET', `${CMS}?watch=true&timeoutSeconds=abc`), 400, 'BadRequest', 'strconv.ParseInt: parsing "abc": invalid syntax');
    assertStatus(await req('GET', `${CMS}?watch=true&timeoutSeconds=`), 400, 'BadRequest', 'strconv.ParseInt: parsing "": invalid syntax');
    assertStatus(await req('GET', `${CMS}?watch=true&timeoutSeconds=1.5`), 400, 'BadRequest', 'strconv.ParseInt: parsing "1.5": invalid syntax');
    assertStatus(await req('GET', `${CMS}?watch=true&timeoutSeconds=9223372036854775808`), 400, 'BadRequest',
      'strconv.ParseInt: parsing "9223372036854775808": value out of range');
    assertStatus(await req('GET', `${CMS}?watch=true&timeoutSeconds=%01x`), 400, 'BadRequest', 'strconv.ParseInt: parsing "\\x01x": invalid syntax');
    assert.deepEqual(warnings, []);
  });

  it('starts a watch pipelined behind another when the first one ends', async () => {
    const rv = b.store.revision();
    let data = '';
    const s = connect(b.port, '127.0.0.1');
    s.setEncoding('latin1');
    s.on('data', (d: string) => { data += d; });
    const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${b.port}\r\nAccept: application/json\r\n\r\n`;
    await new Promise<void>((r) => s.once('connect', () => r()));
    s.write(get(`${CMS}?watch=true&resourceVersion=${rv}&timeoutSeconds=1`) + get(`${CMS}?watch=true&resourceVersion=${rv}`));
    const until = async (what: string, pred: () => boolean) => {
      for (const t0 = Date.now(); !pred(); await new Promise((r) => setTimeout(r, 20))) if (Date.now() - t0 > waitDeadline(5000)) throw new Error(`timed out waiting for ${what}: ${data}`);
    };
    await until('the second response', () => (data.match(/HTTP\/1\.1 200/g) ?? []).length === 2);
    assert.equal((await req('POST', CMS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pipelined' } })).status, 201);
    await until('the event on the second watch', () => data.includes('"name":"pipelined"'));
    const second = data.slice(data.lastIndexOf('HTTP/1.1 200'));
    assert.ok(second.includes('"type":"ADDED"') && second.includes('"name":"pipelined"'), second);
    s.destroy();
  });

  it('reads the first value, in seconds, as Go durations do', () => {
    const half = () => 0.5;
    assert.equal(watchTimeoutMs({}, half), 2_700_000);
    assert.equal(watchTimeoutMs({ timeoutSeconds: '0' }, half), 2_700_000);
    assert.equal(watchTimeoutMs({ timeoutSeconds: ['7', 'x'] }), 7000);
    assert.equal(watchTimeoutMs({ timeoutSeconds: '+3' }), 3000);
    assert.ok(watchTimeoutMs({ timeoutSeconds: '-5' }) < 0);
    assert.equal(watchTimeoutMs({ timeoutSeconds: '9223372036' }), 9_223_372_036_000);
    // 2^55 s is 2^64 * 1953125 ns: exactly zero after wrapping, hence the default.
    assert.equal(watchTimeoutMs({ timeoutSeconds: String(2n ** 55n) }, half), 2_700_000);
    assert.equal(watchTimeoutMs({ timeoutSeconds: '-9223372036854775808' }, half), 2_700_000);
    assert.ok(watchTimeoutMs({ timeoutSeconds: '9223372037' }) < 0);
  });
});
