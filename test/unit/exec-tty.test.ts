// Interactive sessions: the prompt, echo and line editing in a TTY, Ctrl-C, Ctrl-D and exit; plain stdin without
// a TTY; attach following the container's log; port-forward's HTTP/1.1 with keep-alive and bounds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { clientFor } from '../../src/client/client.js';
import { Harness, podSpec, Feed, fakeSession, runtime } from './exec-harness.js';

let h: Harness;
before(async () => {
  h = await Harness.start();
  await h.create(podSpec('bb', { containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'] }] }));
  await h.create(podSpec('deb', { containers: [{ name: 'c', image: 'nginx' }] }));
  await h.create(podSpec('ticker', { containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo start; sleep 5; echo tick 1; sleep 5; echo tick 2; sleep 3600'] }] }));
  await h.run(3000);
});
after(() => h.close());

test('exec -it sh: a prompt, hostname, line editing, Ctrl-C, exit', async () => {
  const rt = await runtime();
  const input = new Feed();
  const s = fakeSession(h, 'bb', ['sh'], { tty: true, stdin: input });
  const done = rt.exec(s.session);
  await s.waitOut('/ # ');
  input.push('hostnamX\x7fe\r');
  await s.waitOut('bb\r\n/ # ');
  assert.ok(s.stdout().startsWith('/ # hostnamX\b \be\r\nbb\r\n/ # '), JSON.stringify(s.stdout()));
  input.push('echo one\x15echo two\r');
  await s.waitOut('two\r\n');
  input.push('partial\x03');
  await s.waitOut('^C\r\n/ # ');
  input.push('cd /etc; echo "a\r');
  await s.waitOut('> ');
  input.push('b"\r');
  await s.waitOut('a\r\nb\r\n/etc # ');
  input.push('sleep 1000\r');
  await new Promise((r) => setTimeout(r, 20));
  input.push('\x03');
  await s.waitOut(/\^C\r\n\/etc # $/);
  input.push('exit 5\r');
  assert.deepEqual(await done, { exitCode: 5 });
});

test('a non-busybox image prompts as bash does; Ctrl-D ends with the last status', async () => {
  const rt = await runtime();
  const input = new Feed();
  const s = fakeSession(h, 'deb', ['bash'], { tty: true, stdin: input });
  const done = rt.exec(s.session);
  await s.waitOut('root@deb:/# ');
  input.push('cd\rfalse\r');
  await s.waitOut('root@deb:~# ');
  input.push('\x04');
  assert.deepEqual(await done, { exitCode: 1 });
});

test('sh without a TTY reads commands from stdin', async () => {
  const rt = await runtime();
  const input = new Feed();
  const s = fakeSession(h, 'bb', ['sh'], { stdin: input });
  const done = rt.exec(s.session);
  input.push('echo hi\nhostname\nfor i in 1 2\ndo echo $i\ndone\n');
  input.end();
  assert.deepEqual(await done, { exitCode: 0 });
  assert.equal(s.stdout(), 'hi\nbb\n1\n2\n');
});

test('attach follows the container log from now on until the client leaves', async () => {
  const { setLogProvider } = await import('../../src/kubelet/log-provider.js');
  void setLogProvider;
  const rt = await runtime();
  const s = fakeSession(h, 'ticker', []);
  const done = rt.attach(s.session);
  await h.run(5000);
  await s.waitOut('tick 1\n');
  await h.run(5000);
  await s.waitOut('tick 1\ntick 2\n');
  assert.ok(!s.stdout().includes('start'));
  s.abort();
  assert.deepEqual(await done, { exitCode: 0 });
});

function forward(pod: string, port: number, chunks: string[]): Promise<string> {
  return (async () => {
    const rt = await runtime();
    const input = new Feed();
    for (const c of chunks) input.push(c);
    input.end();
    const out: Buffer[] = [];
    await rt.portForward({ client: clientFor(h.reg), namespace: 'default', pod, port, input, output: { write: (d) => out.push(Buffer.from(d)) }, signal: new AbortController().signal });
    return Buffer.concat(out).toString('latin1');
  })();
}

test('port-forward answers HTTP/1.1 with keep-alive, split and pipelined requests', async () => {
  const res = await forward('deb', 80, ['GET / HTTP/1.1\r\nHo', 'st: x\r\n\r\nGET /nope HTTP/1.1\r\nHost: x\r\n\r\nHEAD / HTTP/1.1\r\nConnection: close\r\n\r\nGET / HTTP/1.1\r\n\r\n']);
  const statuses = [...res.matchAll(/^HTTP\/1\.1 (\d+)/gm)].map((m) => m[1]);
  assert.deepEqual(statuses, ['200', '404', '200']);
  assert.match(res, /Welcome to nginx!/);
  assert.match(res, /Connection: close\r\n\r\n$/);
  const plain = await forward('bb', 8080, ['POST /x HTTP/1.0\r\nContent-Length: 3\r\n\r\nabc']);
  assert.match(plain, /^HTTP\/1\.1 200 OK\r\n[^]*Connection: close\r\n\r\npod: bb\n/);
});

test('port-forward bounds: huge headers, garbage, bad lengths, refused ports', async () => {
  assert.match(await forward('deb', 80, [`GET / HTTP/1.1\r\nX: ${'a'.repeat(20_000)}\r\n\r\n`]), /^HTTP\/1\.1 431 /);
  assert.match(await forward('deb', 80, ['\x00\xff\x13garbage\r\n\r\n']), /^HTTP\/1\.1 400 /);
  assert.match(await forward('deb', 80, ['GET / HTTP/1.1\r\nContent-Length: 99999999999\r\n\r\n']), /^HTTP\/1\.1 400 /);
  assert.match(await forward('deb', 80, ['GET / HTTP/1.1\r\nContent-Length: 5000000\r\n\r\n']), /^HTTP\/1\.1 413 /);
  assert.match(await forward('deb', 80, ['GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n']), /^HTTP\/1\.1 501 /);
  assert.equal(await forward('deb', 80, ['GET / HTTP/1.1\r\nHost: x']), 'HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 19\r\nConnection: close\r\n\r\nincomplete request\n');
  const rt = await runtime();
  await h.create(podSpec('ported', { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }] }] }));
  await h.run(3000);
  await assert.rejects(rt.portForward({ client: clientFor(h.reg), namespace: 'default', pod: 'ported', port: 81, input: new Feed(), output: { write: () => undefined }, signal: new AbortController().signal }), /connection refused/);
});
