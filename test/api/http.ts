// Small HTTP helpers for API tests against an in-process Bonsai: JSON requests and line-delimited watch streams.
import { after, before } from 'node:test';
import { startBonsai, type Bonsai, type BonsaiOptions } from '../../src/main.js';
import assert from 'node:assert/strict';
import { etcdTestMode, sqliteOnly, startEtcd, type EtcdHandle } from '../helpers/etcd.js';
import { waitDeadline } from '../helpers/wait.js';

export interface Resp {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface ReqOptions {
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  /** Sent as is (string/Buffer) instead of JSON.stringify(body). */
  raw?: string | Buffer;
  /** Send no credentials (the request is system:anonymous). */
  anonymous?: boolean;
}

/** Requests to `base()`, as the admin when `token` gives the admin token (unless a request brings its own Authorization). */
export function client(base: () => string, token?: () => string) {
  return async function req(method: string, path: string, body?: unknown, opts: ReqOptions = {}): Promise<Resp> {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (token && !opts.anonymous && !Object.keys(headers).some((h) => h.toLowerCase() === 'authorization')) headers.authorization = `Bearer ${token()}`;
    let payload: string | Buffer | undefined;
    if (opts.raw !== undefined) payload = opts.raw;
    else if (body !== undefined) payload = JSON.stringify(body);
    if (payload !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    if (opts.accept) headers.accept = opts.accept;
    const res = await fetch(base() + path, { method, headers, body: payload as BodyInit | undefined });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
}

/** Asserts a failure Status with the given code and reason; returns it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function assertStatus(r: Resp, code: number, reason: string, message?: string | RegExp): any {
  assert.equal(r.status, code, `expected ${code}, got ${r.status}: ${r.text.slice(0, 500)}`);
  assert.match(r.headers.get('content-type') ?? '', /application\/json/);
  assert.equal(r.body?.kind, 'Status', r.text.slice(0, 500));
  assert.equal(r.body.apiVersion, 'v1');
  assert.equal(r.body.status, 'Failure');
  assert.equal(r.body.code, code);
  assert.equal(r.body.reason, reason, r.text.slice(0, 500));
  if (typeof message === 'string') assert.equal(r.body.message, message);
  else if (message) assert.match(r.body.message, message);
  return r.body;
}

/** Asserts Go's plain-text `404 page not found`, which kube-apiserver answers for paths outside every API. */
export function assertPageNotFound(r: Resp): void {
  assert.equal(r.status, 404, r.text.slice(0, 300));
  assert.equal(r.text, '404 page not found\n');
  assert.equal(r.headers.get('content-type'), 'text/plain; charset=utf-8');
  assert.equal(r.headers.get('x-content-type-options'), 'nosniff');
}

export interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

export interface Watch {
  status: number;
  headers: Headers;
  events: WatchEvent[];
  /** Resolves once the server has ended the stream (or the watch was closed). */
  ended: Promise<void>;
  isEnded(): boolean;
  /** Waits until `pred(events)` holds, or fails after `timeoutMs`. */
  waitFor(pred: (evs: WatchEvent[]) => boolean, timeoutMs?: number, what?: string): Promise<WatchEvent[]>;
  close(): void;
}

export async function openWatch(url: string, headers: Record<string, string> = {}): Promise<Watch> {
  const ac = new AbortController();
  const res = await fetch(url, { headers, signal: ac.signal });
  const events: WatchEvent[] = [];
  let ended = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of [...waiters]) w();
  };
  const reader = res.body!.getReader();
  const dec = new TextDecoder();
  let buf = '';
  const ended$ = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl).trim();
          buf = buf.slice(nl + 1);
          if (line) events.push(JSON.parse(line) as WatchEvent);
        }
        notify();
      }
      if (buf.trim()) events.push(JSON.parse(buf) as WatchEvent);
    } catch {
      /* aborted */
    } finally {
      ended = true;
      notify();
    }
  })();
  return {
    status: res.status, headers: res.headers, events, ended: ended$,
    isEnded: () => ended,
    waitFor(pred, timeoutMs = 3000, what = 'watch events') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (pred(events)) {
            cleanup();
            resolve(events);
          } else if (ended) {
            cleanup();
            reject(new Error(`stream ended before ${what}: ${JSON.stringify(events.map((e) => [e.type, e.object?.metadata?.name]))}`));
          }
        };
        const t = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${what}: ${JSON.stringify(events.map((e) => [e.type, e.object?.metadata?.name]))}`));
        }, waitDeadline(timeoutMs));
        const cleanup = () => {
          clearTimeout(t);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close() {
      ac.abort();
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The etcd test mode (BONSAI_TEST_STORAGE=etcd): API test servers keep their objects in a fresh etcd instead of SQLite.
export { etcdTestMode, sqliteOnly };

/**
 * For suites that call startBonsai themselves: in the etcd test mode a fresh etcd (spread `options` into the
 * server's options; `stop()` after the server closed), otherwise nothing.
 */
export async function testStorage(): Promise<{ options: { storage?: string }; stop(): Promise<void> }> {
  if (!etcdTestMode) return { options: {}, stop: async () => {} };
  const etcd = await startEtcd();
  return { options: { storage: etcd.storage }, stop: () => etcd.stop() };
}

/**
 * An in-process Bonsai for the suite (`env.b` once `before` has run) and a client bound to it. API tests
 * run with no simulated nodes unless they ask for some, so pods stay where the test puts them.
 */
export function useBonsai(opts: BonsaiOptions = {}): { env: { b: Bonsai }; req: ReturnType<typeof client> } {
  const env = {} as { b: Bonsai };
  let etcd: EtcdHandle | undefined;
  before(async () => {
    // The etcd test mode (BONSAI_TEST_STORAGE=etcd): a fresh etcd for each server.
    if (etcdTestMode && !opts.storage) etcd = await startEtcd();
    // No add-ons unless a suite asks: they install CRDs and watch in the background, which API tests do not want.
    env.b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [], storage: etcd?.storage, ...opts });
  });
  after(async () => {
    await env.b?.close();
    await etcd?.stop();
  });
  return { env, req: client(() => env.b.url, () => env.b.credentials.token) };
}

/**
 * Waits until the root-ca-certificate-publisher has put kube-root-ca.crt in `namespace` (as in every namespace), so
 * that a test's later writes and watches there are not interleaved with it.
 */
export async function rootCaPublished(b: Bonsai, namespace: string): Promise<void> {
  const cms = b.registry.find('', 'v1', 'configmaps')!;
  const deadline = Date.now() + waitDeadline(20_000);
  while (b.registry.list(cms, namespace, { fieldSelector: 'metadata.name=kube-root-ca.crt' }).items.length === 0) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for kube-root-ca.crt in ${namespace}`);
    await sleep(20);
  }
}
