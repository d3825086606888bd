// Starts a real `bonsai serve` child process on a random port with a fresh data dir.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { etcdTestMode, startEtcd, type EtcdHandle } from './etcd-process.js';

export const projectRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const binPath = join(projectRoot, 'dist', 'src', 'cli', 'bin.js');

export interface ServerHandle {
  url: string;
  dataDir: string;
  kubeconfig: string;
  proc: ChildProcess;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  cleanup(): void;
}

// Every server process still running when the test process exits is killed, whatever the test did: a test
// that failed before its `stop()` must not leave a server behind (the runner exits a finished file, see run.mjs).
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

/**
 * `BONSAI_TEST_STORAGE=etcd` (`node test/run.mjs --storage=etcd`): each data dir's servers keep their objects in an
 * etcd of its own, started with the first server and kept for a restart on the same data dir until `cleanup()` (or
 * the process's end). A server given its own `--storage` is left as it is.
 */
const etcds = new Map<string, EtcdHandle>();
process.on('exit', () => {
  for (const e of etcds.values()) void e.stop();
});

async function storageArgs(dataDir: string, args: readonly string[]): Promise<string[]> {
  if (!etcdTestMode || args.includes('--storage')) return [];
  let etcd = etcds.get(dataDir);
  if (!etcd) etcds.set(dataDir, (etcd = await startEtcd()));
  return ['--storage', etcd.storage];
}

/** How long a server may take to print its address: generous, for a loaded machine. */
export const startTimeoutMs = 90_000;

export async function startServer(opts: { dataDir?: string; args?: string[] } = {}): Promise<ServerHandle> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'bonsai-e2e-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  const args = opts.args ?? [];
  const proc = spawn(process.execPath, [binPath, 'serve', '--port', '0', '--data', dataDir, ...args, ...(await storageArgs(dataDir, args))], { stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(proc);
  proc.on('exit', () => live.delete(proc));
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start in ${startTimeoutMs / 1000}s: ${out}${err}`));
    }, startTimeoutMs);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = out.match(/https?:\/\/[\d.]+:\d+/);
      if (m) {
        clearTimeout(t);
        resolve(m[0]);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    url, dataDir, kubeconfig, proc,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await exited;
      // The server logs only warnings and worse by default: an error-level line is a server bug.
      const bad = err.split('\n').filter((l) => /"level":(50|60)/.test(l));
      if (bad.length) throw new Error(`server logged ${bad.length} error(s), first: ${bad[0]}`);
      return code;
    },
    cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
      const etcd = etcds.get(dataDir);
      etcds.delete(dataDir);
      void etcd?.stop();
    },
  };
}

/**
 * Starts a server, runs `fn` with it and stops it whatever `fn` did (then removes its data dir unless the
 * caller passed one). A failure of `fn` wins over a failure of `stop()`.
 */
export async function withServer<T>(opts: { dataDir?: string; args?: string[] }, fn: (s: ServerHandle) => Promise<T>): Promise<T> {
  const s = await startServer(opts);
  let failed = false;
  try {
    return await fn(s);
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    try {
      await s.stop();
    } catch (e) {
      if (!failed) throw e;
    } finally {
      if (!opts.dataDir) s.cleanup();
    }
  }
}

/**
 * Stops every server given (all of them, even when one's stop fails), removes their data dirs unless `keepData`,
 * then reports the first failure. For `after` hooks of suites that start several servers.
 */
export async function stopAll(servers: Iterable<ServerHandle | undefined>, signal?: NodeJS.Signals, keepData = false): Promise<void> {
  const list = [...servers].filter((s): s is ServerHandle => !!s);
  const results = await Promise.allSettled(list.map((s) => s.stop(signal)));
  if (!keepData) for (const s of list) s.cleanup();
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** Runs the `bonsai` CLI (e.g. `node stop NAME --kubeconfig K`) to completion and returns its output. */
export function runBonsai(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [binPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
