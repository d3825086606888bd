// Shutdown as kube-apiserver does it: SIGTERM lets requests in flight finish (bounded), then the process exits
// with its data saved; `npm start` stopped through npm's pid (as scripts and process managers stop it) stops the
// server too, freeing its port.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot, startServer, type ServerHandle } from '../helpers/server.js';
import { eventually } from '../helpers/kubectl.js';

const cms = '/api/v1/namespaces/default/configmaps';

/**
 * A request held in flight: on a connection the server has surely accepted (a first request was answered on it),
 * sends `head` and the first `split` bytes of `body`; `finish` sends the rest and reads everything to the end.
 */
async function heldRequest(port: number, head: string, body: string, split: number) {
  const s = connect(port, '127.0.0.1');
  let data = '';
  const ended = new Promise<string>((resolve, reject) => {
    s.on('end', () => resolve(data));
    s.on('error', reject);
  });
  await new Promise<void>((resolve) => {
    s.on('data', (d) => {
      data += d.toString();
      if (data.endsWith('\r\n\r\nok')) resolve();
    });
    s.write('GET /readyz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  });
  data = '';
  s.write(head + body.slice(0, split));
  await new Promise((r) => setTimeout(r, 200)); // the server has parsed the head and waits for the body
  return { finish: () => (s.write(body.slice(split)), ended), ended };
}

/** Whether something listens on `port` (a listen attempt fails with EADDRINUSE). */
function portInUse(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(true));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(false)));
  });
}

/** Pids of live processes whose command line mentions `text`. */
function processesWith(text: string): number[] {
  const out: number[] = [];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const cmd = readFileSync(`/proc/${p}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmd.includes(text) && state !== 'Z') out.push(Number(p));
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** `npm start -- --port 0 --data DIR` in the project; resolves once it prints its URL. */
async function npmStart(dataDir: string) {
  const proc = spawn('npm', ['start', '--', '--port', '0', '--data', dataDir], { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`npm start printed no URL: ${out}`)), 20_000);
    proc.stdout!.on('data', () => {
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(t);
        resolve(m[0]);
      }
    });
  });
  return { proc, url, port: Number(new URL(url).port), exited };
}

describe('shutdown', () => {
  const servers: ServerHandle[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) for (const pid of processesWith(d)) process.kill(pid, 'SIGKILL'); // never leave one behind
    for (const s of servers) {
      await s.stop('SIGKILL').catch(() => undefined);
      s.cleanup();
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('lets a request in flight at SIGTERM finish with its answer, saves it, then exits 0', async () => {
    const s = await startServer();
    servers.push(s);
    const port = Number(new URL(s.url).port);
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'in-flight' }, data: { a: '1' } });
    const head = `POST ${cms} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const held = await heldRequest(port, head, body, 20);
    s.proc.kill('SIGTERM');
    // The listener goes away at once; the held request is still being served.
    await eventually(async () => !(await portInUse(port)), 5_000, 'the listener to close');
    await new Promise((r) => setTimeout(r, 300));
    const answer = await held.finish();
    assert.match(answer, /^HTTP\/1\.1 201 Created/);
    assert.match(answer, /connection: close/i);
    assert.match(answer, /"name":"in-flight"/);
    assert.equal(await s.stop(), 0);

    const again = await startServer({ dataDir: s.dataDir });
    servers.push(again);
    const r = await fetch(`${again.url}${cms}/in-flight`);
    assert.equal(r.status, 200);
  });

  it('cuts a request still unfinished after the grace period, and exits', async () => {
    const s = await startServer();
    servers.push(s);
    const port = Number(new URL(s.url).port);
    const held = await heldRequest(port, `POST ${cms} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`, '{', 1);
    const t0 = Date.now();
    s.proc.kill('SIGTERM');
    assert.equal(await s.stop(), 0);
    // It waited the grace period out (a lower bound holds on any machine; how much longer it took is no assertion).
    const took = Date.now() - t0;
    assert.ok(took >= 4_000, `exited after ${took} ms, before the grace period`);
    await held.ended.catch(() => undefined); // the connection was cut
  });

  it('stops with npm when npm start is sent SIGTERM, freeing the port and leaving no node process', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bonsai-npm-'));
    dirs.push(dataDir);
    const npm = await npmStart(dataDir);
    assert.equal((await fetch(`${npm.url}/readyz`)).status, 200);
    assert.ok(processesWith(dataDir).length > 0);
    npm.proc.kill('SIGTERM');
    await Promise.race([npm.exited, new Promise((_, reject) => setTimeout(() => reject(new Error('npm did not exit within 15 s of SIGTERM')), 15_000).unref())]);
    await eventually(async () => {
      assert.deepEqual(processesWith(dataDir), []);
      assert.equal(await portInUse(npm.port), false);
      return true;
    }, 10_000, 'the server to stop');
  });

  it('stops when npm itself is killed (SIGKILL), noticing its parent is gone', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'bonsai-npm-'));
    dirs.push(dataDir);
    const npm = await npmStart(dataDir);
    npm.proc.kill('SIGKILL');
    await npm.exited;
    await eventually(async () => {
      assert.deepEqual(processesWith(dataDir), []);
      assert.equal(await portInUse(npm.port), false);
      return true;
    }, 10_000, 'the server to stop');
  });
});
