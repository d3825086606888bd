// Bonsai as a fixture for other processes: close() leaves nothing running (the process exits by itself), and
// `bonsai serve --output json` prints one machine-readable line, cleans its ':memory:' temp folder on exit, and
// merges its kubeconfig over a user's changes on restart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { binPath, projectRoot } from '../helpers/server.js';

const entry = pathToFileURL(join(projectRoot, 'dist', 'src', 'index.js')).href;

/** Runs a module as a child; resolves with its exit code, its output and whether it printed `mark`. */
function runChild(code: string, mark: string, limitMs: number): Promise<{ code: number | null; out: string; marked: boolean }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const t = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`child did not exit within ${limitMs} ms: ${out}`));
    }, limitMs);
    const take = (d: Buffer) => {
      out += d.toString();
    };
    p.stdout.on('data', take);
    p.stderr.on('data', take);
    p.on('exit', (code) => {
      clearTimeout(t);
      resolve({ code, out, marked: out.includes(mark) });
    });
  });
}

interface ReadyLine { url: string; port: number; kubeconfig: string; token: string; pid: number; data: string }

/** `bonsai serve ARGS`; resolves with the parsed JSON line and the process. */
function serveJson(args: string[]) {
  const p = spawn(process.execPath, [binPath, 'serve', '--port', '0', '--output', 'json', '--addons', '', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  p.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => p.on('exit', (c) => resolve(c)));
  const line = new Promise<ReadyLine>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no ready line in 20 s: ${out}${err}`)), 20_000);
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) {
        clearTimeout(t);
        resolve(JSON.parse(out.slice(0, out.indexOf('\n'))) as ReadyLine);
      }
    });
    p.on('exit', (c) => reject(new Error(`serve exited with ${c}: ${err}`)));
  });
  return { p, line, exited, output: () => out };
}

describe('fixture processes', () => {
  it('a process that starts and closes Bonsai exits by itself, also when closed while add-ons still install', async () => {
    for (const opts of ['{ addons: [] }', '{}']) {
      const code = `import { startBonsai } from ${JSON.stringify(entry)};
        const b = await startBonsai({ port: 0, data: ':memory:', ...${opts} });
        await b.waitForCondition('nodes', '', (await (await fetch(b.url + '/api/v1/nodes', { headers: { authorization: 'Bearer ' + b.credentials.token } })).json()).items[0].metadata.name, 'Ready', { timeoutMs: 10000 });
        void b.kubeconfigPath;
        await b.close();
        // Work queued just before close (a queue's drain, a store's flush) may still take a turn or two;
        // one that keeps re-queueing itself would still be there after twenty.
        for (let i = 0; i < 20; i++) {
          await new Promise((r) => setImmediate(r));
          if (!process.getActiveResourcesInfo().includes('Immediate')) break;
        }
        console.log('CLOSED ' + JSON.stringify(process.getActiveResourcesInfo()));`;
      const r = await runChild(code, 'CLOSED', 40_000);
      assert.equal(r.code, 0, r.out);
      assert.ok(r.marked, `printed CLOSED (${opts}): ${r.out}`);
      // Nothing of Bonsai's keeps the process alive once closed: no timer, socket, server or child; only the
      // child's own stdout/stderr pipes and file operations and closes finishing by themselves remain.
      const active = JSON.parse(/CLOSED (\[.*\])/.exec(r.out)?.[1] ?? 'null') as string[] | null;
      assert.ok(active, r.out);
      const finishing = new Set(['PipeWrap', 'TTYWrap', 'FSReqPromise', 'FSReqCallback', 'CloseReq', 'WriteWrap', 'ShutdownWrap']);
      assert.deepEqual(active.filter((a) => !finishing.has(a)), [], `still active after close (${opts})`);
    }
  });

  it('serve --data :memory: --output json prints one JSON line when ready; SIGTERM stops it and removes its temp folder', async () => {
    const s = serveJson(['--data', ':memory:']);
    const l = await s.line;
    assert.match(l.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(l.url, `http://127.0.0.1:${l.port}`);
    assert.equal(l.pid, s.p.pid);
    assert.equal(l.data, ':memory:');
    assert.ok(isAbsolute(l.kubeconfig) && existsSync(l.kubeconfig), l.kubeconfig);
    assert.match(readFileSync(l.kubeconfig, 'utf8'), new RegExp(l.url));
    const r = await fetch(`${l.url}/api/v1/nodes`, { headers: { authorization: `Bearer ${l.token}` } });
    assert.equal(r.status, 200);
    assert.ok(((await r.json()) as { items: unknown[] }).items.length > 0, 'nodes registered when the line is printed');
    process.kill(l.pid, 'SIGTERM');
    assert.equal(await s.exited, 0);
    assert.equal(s.output().trim().split('\n').length, 1, 'stdout holds exactly one line');
    assert.equal(existsSync(dirname(l.kubeconfig)), false, 'temp folder removed');
  });

  it('a restart merges the kubeconfig: the user\'s current context and entries stay, Bonsai\'s server is updated', async () => {
    const data = mkdtempSync(join(tmpdir(), 'bonsai-fx-'));
    try {
      const first = serveJson(['--data', data]);
      const a = await first.line;
      assert.equal(a.kubeconfig, join(data, 'kubeconfig'));
      process.kill(a.pid, 'SIGTERM');
      await first.exited;
      const mine = readFileSync(a.kubeconfig, 'utf8').replace('current-context: bonsai', 'current-context: mine')
        .replace('contexts:\n', 'contexts:\n  - name: mine\n    context:\n      cluster: bonsai\n      user: bonsai\n      namespace: mine\n');
      writeFileSync(a.kubeconfig, mine);
      const second = serveJson(['--data', data]);
      const b = await second.line;
      const text = readFileSync(b.kubeconfig, 'utf8');
      assert.match(text, /current-context: mine/);
      assert.match(text, /name: mine/);
      assert.ok(text.includes(`server: "${b.url}"`) || text.includes(`server: ${b.url}`), text);
      process.kill(b.pid, 'SIGTERM');
      assert.equal(await second.exited, 0);
    } finally {
      rmSync(data, { recursive: true, force: true });
    }
  });

  it('--output json refuses --audit-log - (stdout is the line\'s)', async () => {
    const s = serveJson(['--data', ':memory:', '--audit-log', '-']);
    await assert.rejects(s.line, /serve exited with 1/);
  });
});
