// Durability and lifecycle: acknowledged writes survive SIGKILL, resourceVersions keep growing across restarts,
// watches resume from a resourceVersion after a restart, SIGTERM shuts down cleanly, :memory: touches no disk,
// and unusable watch resourceVersions fail cleanly.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binPath, startServer, startTimeoutMs, stopAll, type ServerHandle } from '../helpers/server.js';
import { eventually } from '../helpers/kubectl.js';
import { waitDeadline, within } from '../helpers/wait.js';
import { etcdTestMode } from '../helpers/etcd-process.js';

type Json = Record<string, any>;

const cmPath = (ns = 'default') => `/api/v1/namespaces/${ns}/configmaps`;
const cmBody = (name: string, data: Record<string, string> = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

async function api(base: string, path: string, init: { method?: string; body?: string } = {}): Promise<{ status: number; body: Json }> {
  const res = await fetch(base + path, { method: init.method ?? 'GET', body: init.body, headers: init.body ? { 'content-type': 'application/json' } : {}, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Json) : {} };
}

async function createCm(base: string, name: string, data: Record<string, string> = {}): Promise<Json> {
  const r = await api(base, cmPath(), { method: 'POST', body: cmBody(name, data) });
  assert.equal(r.status, 201, `create ${name}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** A streaming watch: events are read line by line; `next` fails instead of hanging. */
async function openWatch(base: string, path: string) {
  const ac = new AbortController();
  const res = await fetch(base + path, { signal: ac.signal });
  // A watch refused up front answers with a plain Status body.
  const refused = res.status === 200 ? undefined : ((await res.json()) as Json);
  const reader = refused ? undefined : res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let done = false;
  const next = async (timeoutMs = 5_000): Promise<Json | undefined> => {
    const deadline = Date.now() + waitDeadline(timeoutMs);
    for (;;) {
      const nl = buf.indexOf('\n');
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) return JSON.parse(line) as Json;
        continue;
      }
      if (done || !reader) return undefined;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch event within ${timeoutMs}ms on ${path}`);
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        reader.read(),
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
      ]).finally(() => clearTimeout(timer));
      if (r === 'timeout') continue;
      if (r.done) done = true;
      else buf += decoder.decode(r.value, { stream: true });
    }
  };
  /** Resolves true when the server ends the stream within the timeout. */
  const ended = async (timeoutMs = 5_000): Promise<boolean> => {
    try {
      for (;;) if ((await next(timeoutMs)) === undefined) return true;
    } catch (e) {
      if (String(e).includes('no watch event')) return false;
      return true; // reset by the server also ends it
    }
  };
  return { status: res.status, refused, next, ended, close: () => ac.abort() };
}

/** `bonsai serve` in a chosen working directory, without the helper's data dir. */
async function serveIn(cwd: string, args: string[]): Promise<{ url: string; proc: ReturnType<typeof spawn>; exited: Promise<number | null> }> {
  const proc = spawn(process.execPath, [binPath, 'serve', '--port', '0', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start: ${out}`));
    }, startTimeoutMs);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/http:\/\/[\d.]+:\d+/);
      if (m) clearTimeout(t), resolve(m[0]);
    });
    void exited.then((code) => (clearTimeout(t), reject(new Error(`server exited with ${code}: ${out}`))));
  });
  return { url, proc, exited };
}

describe('durability', () => {
  const servers: ServerHandle[] = [];
  const dirs: string[] = [];
  after(async () => {
    try {
      await stopAll(servers, 'SIGKILL');
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
  });

  it('keeps every acknowledged write across SIGKILL and resumes watches from a resourceVersion', async (t) => {
    const s1 = await startServer();
    servers.push(s1);
    const acked = new Map<string, number>();
    const unexpected: string[] = [];
    let stop = false;
    let seq = 0;
    const writer = async (w: number) => {
      while (!stop) {
        const name = `w${w}-${seq++}`;
        try {
          const res = await fetch(s1.url + cmPath(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: cmBody(name, { writer: String(w) }) });
          const body = (await res.json()) as Json;
          if (res.status === 201) acked.set(name, Number(body.metadata.resourceVersion));
          else unexpected.push(`${name}: ${res.status} ${JSON.stringify(body)}`);
        } catch {
          return; // the server is gone: this write was never acknowledged
        }
      }
    };
    const started = Date.now();
    const writers = [0, 1, 2, 3].map(writer);
    await eventually(() => Date.now() - started >= 1_000 && acked.size >= 20, 15_000, 'at least 1 s and 20 acknowledged writes');
    const killed = s1.stop('SIGKILL');
    await killed;
    stop = true;
    await Promise.all(writers);
    assert.equal(s1.proc.signalCode, 'SIGKILL');
    assert.deepEqual(unexpected, []);
    const rvs = [...acked.values()];
    assert.equal(new Set(rvs).size, rvs.length, 'every acknowledged write got its own resourceVersion');
    const maxAcked = Math.max(...rvs);
    t.diagnostic(`${acked.size} writes acknowledged before SIGKILL (newest resourceVersion ${maxAcked})`);

    const s2 = await startServer({ dataDir: s1.dataDir });
    servers.push(s2);
    // Every acknowledged write is there, exactly as acknowledged.
    const names = [...acked.keys()];
    const missing: string[] = [];
    for (let i = 0; i < names.length; i += 16) {
      await Promise.all(names.slice(i, i + 16).map(async (name) => {
        const r = await api(s2.url, `${cmPath()}/${name}`);
        if (r.status !== 200 || Number(r.body.metadata.resourceVersion) !== acked.get(name)) missing.push(`${name}@${acked.get(name)}: ${r.status} ${r.body.metadata?.resourceVersion}`);
      }));
    }
    assert.deepEqual(missing, [], `${missing.length} of ${names.length} acknowledged writes lost`);
    const list = await api(s2.url, cmPath());
    assert.ok(Number(list.body.metadata.resourceVersion) >= maxAcked);
    assert.ok(list.body.items.length >= acked.size);

    // A new write is newer than everything seen before the crash.
    const afterRestart = await createCm(s2.url, 'after-restart');
    const afterRv = Number(afterRestart.metadata.resourceVersion);
    assert.ok(afterRv > maxAcked, `new resourceVersion ${afterRv} > ${maxAcked}`);
    assert.ok(afterRv > Number(list.body.metadata.resourceVersion));

    // Resuming from the newest acknowledged pre-crash write replays only later changes (across the restart).
    const replay = await openWatch(s2.url, `${cmPath()}?watch=true&resourceVersion=${maxAcked}`);
    assert.equal(replay.status, 200);
    const probe = await createCm(s2.url, 'watch-probe');
    if (etcdTestMode) {
      // On etcd the new process's watch cache starts at etcd's revision: an older resourceVersion is gone, as
      // kube-apiserver answers after a restart (SQLite replays it from the change log it keeps).
      const gone = await replay.next();
      assert.equal(gone?.type, 'ERROR', JSON.stringify(gone));
      assert.equal(gone?.object.code, 410);
      replay.close();
    } else {
      const replayed: Json[] = [];
      for (;;) {
        const e = await replay.next();
        assert.ok(e, 'watch ended early');
        replayed.push(e);
        if (e.object?.metadata?.name === 'watch-probe') break;
      }
      replay.close();
      for (const e of replayed) {
        assert.equal(e.type, 'ADDED', JSON.stringify(e));
        assert.ok(Number(e.object.metadata.resourceVersion) > maxAcked, `replayed ${e.object.metadata.name}@${e.object.metadata.resourceVersion} is not newer than ${maxAcked}`);
        assert.ok(!acked.has(e.object.metadata.name), `acknowledged write ${e.object.metadata.name} replayed again`);
      }
      const replayedRvs = replayed.map((e) => Number(e.object.metadata.resourceVersion));
      assert.deepEqual(replayedRvs, [...replayedRvs].sort((a, b) => a - b));
      assert.deepEqual(replayed.slice(-2).map((e) => e.object.metadata.name), ['after-restart', 'watch-probe']);
    }

    // Resuming from the last resourceVersion seen: the next change is the first event, nothing older.
    const lastSeen = Number(probe.metadata.resourceVersion);
    const w = await openWatch(s2.url, `${cmPath()}?watch=true&resourceVersion=${lastSeen}`);
    assert.equal(w.status, 200);
    const next = await createCm(s2.url, 'after-watch', { k: 'v' });
    const first = await w.next();
    assert.equal(first?.type, 'ADDED');
    assert.equal(first?.object.metadata.name, 'after-watch');
    assert.equal(first?.object.metadata.resourceVersion, next.metadata.resourceVersion);
    assert.deepEqual(first?.object.data, { k: 'v' });
    const del = await api(s2.url, `${cmPath()}/after-restart`, { method: 'DELETE' });
    assert.equal(del.status, 200);
    const second = await w.next();
    assert.equal(second?.type, 'DELETED');
    assert.equal(second?.object.metadata.name, 'after-restart');
    w.close();
  });

  it('exits 0 on SIGTERM, ending open watches, and keeps its data', async () => {
    const s = await startServer();
    servers.push(s);
    const kept = await createCm(s.url, 'keep-me', { a: '1' });
    const w = await openWatch(s.url, `${cmPath()}?watch=true`);
    assert.equal((await w.next())?.object.metadata.name, 'keep-me');
    const code = await within(s.stop('SIGTERM'), 5_000, 'the exit after SIGTERM');
    assert.equal(code, 0, 'exit code after SIGTERM');
    assert.ok(await w.ended(2_000), 'the open watch was ended');

    const again = await startServer({ dataDir: s.dataDir });
    servers.push(again);
    const r = await api(again.url, `${cmPath()}/keep-me`);
    assert.equal(r.status, 200);
    assert.equal(r.body.metadata.uid, kept.metadata.uid);
    assert.equal(r.body.metadata.resourceVersion, kept.metadata.resourceVersion);
    assert.deepEqual(r.body.data, { a: '1' });
    const newer = await createCm(again.url, 'newer');
    assert.ok(Number(newer.metadata.resourceVersion) > Number(kept.metadata.resourceVersion));
    assert.equal(await again.stop('SIGTERM'), 0);
  });

  it('--data :memory: serves without touching the disk', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bonsai-mem-'));
    dirs.push(cwd);
    const first = await serveIn(cwd, ['--data', ':memory:']);
    try {
      await createCm(first.url, 'ephemeral', { x: 'y' });
      const r = await api(first.url, `${cmPath()}/ephemeral`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.data, { x: 'y' });
      const ns = await api(first.url, '/api/v1/namespaces');
      assert.ok(ns.body.items.some((n: Json) => n.metadata.name === 'kube-system'), 'bootstrapped namespaces');
    } finally {
      first.proc.kill('SIGTERM');
    }
    assert.equal(await first.exited, 0);
    // Nothing is written to the working directory: no database, WAL or data dir (the kubeconfig goes to a temp dir).
    assert.deepEqual(readdirSync(cwd), []);

    const second = await serveIn(cwd, ['--data', ':memory:']);
    try {
      const r = await api(second.url, `${cmPath()}/ephemeral`);
      assert.equal(r.status, 404, 'a fresh :memory: server starts empty');
    } finally {
      second.proc.kill('SIGTERM');
    }
    assert.equal(await second.exited, 0);
    assert.deepEqual(readdirSync(cwd), []);
  });

  it('fails a watch from an unusable resourceVersion cleanly instead of hanging', async () => {
    const s = await startServer();
    servers.push(s);
    // Once the namespace's kube-root-ca.crt is published, nothing else writes ConfigMaps there.
    await eventually(async () => JSON.stringify((await api(s.url, cmPath())).body).includes('kube-root-ca.crt'), 20_000, 'kube-root-ca.crt');
    const before = (await api(s.url, cmPath())).body as { metadata: { resourceVersion: string }; items: Array<{ metadata: { name: string; resourceVersion: string } }> };
    const current = Number(before.metadata.resourceVersion);
    const cases: Array<{ rv: string; codes: number[]; reason: RegExp }> = [
      { rv: 'abc', codes: [400], reason: /^BadRequest$/ },
      { rv: '-5', codes: [400], reason: /^BadRequest$/ },
      { rv: '1.5', codes: [400], reason: /^BadRequest$/ },
      // Kubernetes answers a resourceVersion it has not reached with 504 Timeout / ResourceVersionTooLarge (or 410 Gone).
      { rv: String(current + 1_000_000), codes: [504, 410], reason: /^(Timeout|Expired|Gone)$/ },
      { rv: '99999999999999999999', codes: [504, 410], reason: /^(Timeout|Expired|Gone)$/ },
    ];
    for (const c of cases) {
      const w = await openWatch(s.url, `${cmPath()}?watch=true&resourceVersion=${c.rv}`);
      let status: Json;
      if (w.status === 200) {
        const e = await w.next(5_000);
        assert.ok(e, `watch rv=${c.rv}: stream ended without an event`);
        assert.equal(e.type, 'ERROR', `watch rv=${c.rv} gave ${JSON.stringify(e)}`);
        status = e.object;
        assert.ok(await w.ended(5_000), `watch rv=${c.rv}: stream not closed after ERROR`);
      } else {
        status = w.refused!;
        assert.equal(w.status, status.code, `watch rv=${c.rv}: HTTP status matches the Status code`);
      }
      w.close();
      assert.equal(status.kind, 'Status', `watch rv=${c.rv}: ${JSON.stringify(status)}`);
      assert.equal(status.status, 'Failure');
      assert.ok(c.codes.includes(status.code), `watch rv=${c.rv}: code ${status.code} not in ${c.codes}: ${JSON.stringify(status)}`);
      assert.match(status.reason, c.reason);
    }
    // The server is still healthy and the failed watches wrote nothing (the simulated cluster writes meanwhile, so
    // the global revision moves on: compare the ConfigMaps themselves).
    const after = (await api(s.url, cmPath())).body as typeof before;
    assert.deepEqual(after.items.map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`), before.items.map((i) => `${i.metadata.name}@${i.metadata.resourceVersion}`));
    const ok = await openWatch(s.url, `${cmPath()}?watch=true&resourceVersion=${after.metadata.resourceVersion}`);
    const made = await createCm(s.url, 'still-fine');
    assert.equal((await ok.next())?.object.metadata.resourceVersion, made.metadata.resourceVersion);
    ok.close();
  });
});
