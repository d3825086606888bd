// Hostile clients of the streaming endpoints, on raw sockets against an in-process Bonsai with the stand-in
// runtime: garbage and bombs after a SPDY upgrade, unknown protocols, oversized WebSocket messages, a client that
// never reads. Each connection is ended by the server, which keeps serving.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { clientFor } from '../../src/client/client.js';
import { installContainerRuntime } from '../../src/api/streaming/runtime.js';
import { dataFrame, synStreamFrame } from '../../src/api/streaming/spdy-frames.js';
import { encodeHeaderBlock } from '../../src/api/streaming/spdy-headers.js';
import { runningWebPod, standInRuntime } from '../helpers/stand-in-runtime.js';
import { goLikeCompressor } from '../helpers/spdy-compressor.js';

const EXEC = '/api/v1/namespaces/default/pods/web/exec';

interface Raw {
  socket: Socket;
  head: string;
  closed: Promise<void>;
  received(): number;
}

function open(b: Bonsai, path: string, headers: Record<string, string>, read = true, token = b.credentials.token): Promise<Raw> {
  const url = new URL(b.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let buf = Buffer.alloc(0);
    let got = 0;
    let done = false;
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => undefined);
    const lines = Object.entries({ host: url.host, authorization: `Bearer ${token}`, connection: 'Upgrade', ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    const method = headers.upgrade === 'websocket' ? 'GET' : 'POST';
    socket.write(`${method} ${path} HTTP/1.1\r\n${lines}content-length: 0\r\n\r\n`);
    socket.on('data', (d: Buffer) => {
      got += d.length;
      if (done) return;
      buf = Buffer.concat([buf, d]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      done = true;
      if (!read) socket.pause();
      resolve({ socket, head: buf.subarray(0, end).toString('latin1'), closed, received: () => got });
    });
    socket.on('close', () => done || reject(new Error('closed before an answer')));
  });
}

const spdy = { upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v4.channel.k8s.io' };
const websocket = { upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': 'v5.channel.k8s.io' };

describe('streaming endpoints under hostile clients', () => {
  let b: Bonsai;
  before(async () => {
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', addons: [] });
    installContainerRuntime(b.registry, standInRuntime);
    await runningWebPod(b);
  });
  after(async () => {
    await b?.close();
  });

  async function stillServes(): Promise<void> {
    const raw = await open(b, `${EXEC}?command=echo&command=ok&stdout=true`, spdy);
    assert.match(raw.head, /^HTTP\/1.1 101/);
    raw.socket.destroy();
  }

  it('ends a SPDY connection that sends garbage, or a header bomb', async () => {
    const raw = await open(b, `${EXEC}?command=echo&stdout=true`, spdy);
    assert.match(raw.head, /^HTTP\/1.1 101 Switching Protocols/);
    assert.match(raw.head, /X-Stream-Protocol-Version: v4.channel.k8s.io/i);
    raw.socket.write(Buffer.from('GET / HTTP/1.1\r\n\r\n'.repeat(10)));
    await raw.closed;
    const bomb = await open(b, `${EXEC}?command=echo&stdout=true`, spdy);
    const compress = goLikeCompressor();
    bomb.socket.write(synStreamFrame(1, await compress(encodeHeaderBlock([['streamtype', 'x'.repeat(1 << 20)]]))));
    await bomb.closed;
    await stillServes();
  });

  it('refuses protocols it does not speak', async () => {
    const none = await open(b, `${EXEC}?command=echo&stdout=true`, { upgrade: 'SPDY/3.1', 'x-stream-protocol-version': 'v9.channel.k8s.io' });
    assert.match(none.head, /^HTTP\/1.1 403/);
    await none.closed;
    const h2 = await open(b, `${EXEC}?command=echo&stdout=true`, { upgrade: 'h2c' });
    assert.match(h2.head, /^HTTP\/1.1 400/);
    const ws = await open(b, `${EXEC}?command=echo&stdout=true`, { upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': 'nope' });
    assert.match(ws.head, /^HTTP\/1.1 400/);
    const missing = await open(b, '/api/v1/namespaces/default/pods/ghost/exec?command=echo&stdout=true', spdy);
    assert.match(missing.head, /^HTTP\/1.1 404/);
    const noCommand = await open(b, `${EXEC}?stdout=true`, spdy);
    assert.match(noCommand.head, /^HTTP\/1.1 400/);
  });

  it('drops a client that never reads instead of buffering for it', async () => {
    const raw = await open(b, `${EXEC}?command=big&command=60000000&stdout=true`, spdy, false);
    const compress = goLikeCompressor();
    raw.socket.write(synStreamFrame(1, await compress(encodeHeaderBlock([['streamtype', 'error']]))));
    raw.socket.write(synStreamFrame(3, await compress(encodeHeaderBlock([['streamtype', 'stdout']]))));
    // The server cuts the connection once its backlog passes the bound; a paused client notices when it reads again.
    await new Promise((r) => setTimeout(r, 1500));
    raw.socket.resume();
    const closed = await Promise.race([raw.closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))]);
    raw.socket.destroy();
    assert.equal(closed, true, 'the server cut the connection');
    assert.ok(raw.received() < 60_000_000);
    await stillServes();
  });

  it('ignores streams it did not ask for and data for unknown streams', async () => {
    const raw = await open(b, `${EXEC}?command=echo&command=hi&stdout=true`, spdy);
    const compress = goLikeCompressor();
    raw.socket.write(dataFrame(99, Buffer.from('stray')));
    raw.socket.write(synStreamFrame(1, await compress(encodeHeaderBlock([['streamtype', 'bogus']]))));
    raw.socket.write(synStreamFrame(3, await compress(encodeHeaderBlock([['streamtype', 'error']]))));
    raw.socket.write(synStreamFrame(5, await compress(encodeHeaderBlock([['streamtype', 'stdout']]))));
    const got: Buffer[] = [];
    raw.socket.on('data', (d: Buffer) => got.push(d));
    await new Promise((r) => setTimeout(r, 300));
    const all = Buffer.concat(got).toString('latin1');
    assert.match(all, /hi\n/);
    assert.match(all, /"status":"Success"/);
    raw.socket.destroy();
  });
});

describe('streaming authorization', () => {
  let b: Bonsai;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bonsai-stream-rbac-'));
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 't-getter,getter,u1\nt-creator,creator,u2\n');
    b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', addons: [], authorizationMode: 'RBAC', tokenAuthFile: tokens });
    installContainerRuntime(b.registry, standInRuntime);
    await runningWebPod(b);
    const c = clientFor(b.registry);
    const role = (name: string, verbs: string[]) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace: 'default' }, rules: [{ apiGroups: [''], resources: ['pods/exec'], verbs }] });
    const binding = (name: string, user: string) => ({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name, namespace: 'default' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }] });
    c.create('rbac.authorization.k8s.io/v1/roles', 'default', role('getter', ['get']) as never);
    c.create('rbac.authorization.k8s.io/v1/rolebindings', 'default', binding('getter', 'getter') as never);
    c.create('rbac.authorization.k8s.io/v1/roles', 'default', role('creator', ['get', 'create']) as never);
    c.create('rbac.authorization.k8s.io/v1/rolebindings', 'default', binding('creator', 'creator') as never);
    await b.store.committed();
  });
  after(async () => {
    await b?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a WebSocket upgrade (a GET) needs create on pods/exec, as a POST does', async () => {
    const path = `${EXEC}?command=echo&stdout=true`;
    const denied = await open(b, path, websocket, true, 't-getter');
    assert.match(denied.head, /^HTTP\/1.1 403/);
    denied.socket.destroy();
    const post = await open(b, path, spdy, true, 't-getter');
    assert.match(post.head, /^HTTP\/1.1 403/);
    post.socket.destroy();
    const allowed = await open(b, path, websocket, true, 't-creator');
    assert.match(allowed.head, /^HTTP\/1.1 101/);
    allowed.socket.destroy();
  });
});
