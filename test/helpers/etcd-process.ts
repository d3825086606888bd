// Starts Debian's etcd (/usr/bin/etcd, 3.4) on random loopback ports with a temporary data dir: for tests, and for
// the bench's storage figures (which is why nothing here imports node:test).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const etcdBinary = process.env.BONSAI_ETCD_BINARY ?? '/usr/bin/etcd';

/** `BONSAI_TEST_STORAGE=etcd` (`node test/run.mjs --storage=etcd`): the test servers keep their objects in etcd. */
export const etcdTestMode = process.env.BONSAI_TEST_STORAGE === 'etcd';

/** For `it(name, { skip: sqliteOnly('why') }, …)`: tests of what only the SQLite store has (time travel, its file). */
export function sqliteOnly(reason: string): string | false {
  return etcdTestMode ? `SQLite only: ${reason}` : false;
}

export interface EtcdHandle {
  /** `127.0.0.1:PORT`, for `--storage etcd://…`. */
  address: string;
  /** `etcd://127.0.0.1:PORT`. */
  storage: string;
  /** `http://127.0.0.1:PORT`. */
  url: string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** etcd 3.4 fsyncs every write (it has no --unsafe-no-fsync): keep test data in memory where the system allows. */
function scratchRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}

/**
 * A shell that waits for this process to end however it ends (a signal, SIGKILL included: its stdin, a pipe from this
 * process, then reaches its end), then stops etcd and removes its data: no etcd outlives the test that started it.
 */
function orphanWatchdog(pid: number | undefined, dir: string): ChildProcess | undefined {
  if (pid === undefined) return undefined;
  const script = 'cat >/dev/null; kill "$0" 2>/dev/null; while kill -0 "$0" 2>/dev/null; do sleep 0.1; done; rm -rf "$1"';
  const dog = spawn('/bin/sh', ['-c', script, String(pid), dir], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  dog.on('error', () => {});
  dog.unref();
  (dog.stdin as Socket | null)?.unref();
  return dog;
}

export async function startEtcd(opts: { progressNotifyMs?: number } = {}): Promise<EtcdHandle> {
  const dir = mkdtempSync(join(scratchRoot(), 'bonsai-etcd-'));
  const [client, peer] = [await freePort(), await freePort()];
  const url = `http://127.0.0.1:${client}`;
  const peerUrl = `http://127.0.0.1:${peer}`;
  const args = [
    '--name', 'bonsai-test', '--data-dir', join(dir, 'data'),
    '--listen-client-urls', url, '--advertise-client-urls', url,
    '--listen-peer-urls', peerUrl, '--initial-advertise-peer-urls', peerUrl,
    '--initial-cluster', `bonsai-test=${peerUrl}`, '--initial-cluster-state', 'new',
    '--quota-backend-bytes', String(256 * 1024 * 1024),
    '--experimental-watch-progress-notify-interval', `${opts.progressNotifyMs ?? 1000}ms`,
    '--log-level', 'error', '--logger', 'zap',
  ];
  const proc = spawn(etcdBinary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => {
    if (err.length < 20_000) err += d.toString();
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const watchdog = orphanWatchdog(proc.pid, dir);
  const stop = async () => {
    watchdog?.kill('SIGKILL');
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  };
  const until = Date.now() + 20_000;
  for (;;) {
    if (proc.exitCode !== null) {
      await stop();
      throw new Error(`etcd exited with ${proc.exitCode}: ${err.slice(0, 2000)}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok && /"health":\s*"true"/.test(await res.text())) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > until) {
      await stop();
      throw new Error(`etcd did not become healthy within 20 s: ${err.slice(0, 2000)}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const address = `127.0.0.1:${client}`;
  return { address, storage: `etcd://${address}`, url, stop };
}
