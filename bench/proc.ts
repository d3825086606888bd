// Child server processes for the benchmark: spawn Bonsai or the baseline, learn its URL, stop it, read its RSS.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

/** dist/bench/proc.js -> repository root. */
export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bonsaiBin = join(root, 'dist', 'src', 'cli', 'bin.js');
export const baselineBin = join(root, 'dist', 'bench', 'baseline-server.js');
/** Bonsai with a pod create over HTTP cut down to the baseline's insert: figure 2's bound (create-bound-server.ts). */
export const boundBin = join(root, 'dist', 'bench', 'create-bound-server.js');

/** `bound` takes Bonsai's arguments. */
export type ServerKind = 'bonsai' | 'baseline' | 'bound';

export interface ServerProc {
  kind: ServerKind;
  child: ChildProcess;
  pid: number;
  /** performance.now() immediately before spawn(). */
  spawnedAt: number;
  /** Resolves with the base URL once the server printed it. */
  ready: Promise<string>;
  /** Where the server keeps its data ('' when :memory:). */
  dataDir: string;
  stop(): Promise<void>;
}

const scratch = mkdtempSync(join(tmpdir(), 'bonsai-bench-'));
const live = new Set<ServerProc>();

/** A fresh directory inside the bench's scratch directory (removed by cleanup()). */
export function freshDir(label: string): string {
  return mkdtempSync(join(scratch, `${label}-`));
}

export interface SpawnOptions {
  /** Flags for node itself, before the script (e.g. --import of a probe). */
  nodeArgs?: string[];
  /** Extra environment variables for the child. */
  env?: Record<string, string>;
  /** With data 'dir': reuse this directory (a restart) instead of a fresh one. */
  dataDir?: string;
}

/**
 * Spawns a server. `data` is ':memory:' (Bonsai only) or 'dir' for a fresh temp data directory.
 * The child's cwd is a scratch directory so nothing (e.g. a kubeconfig) lands in the repository.
 */
export function spawnServer(kind: ServerKind, data: ':memory:' | 'dir', extraArgs: string[] = [], opts: SpawnOptions = {}): ServerProc {
  const dataDir = data === 'dir' ? opts.dataDir ?? freshDir(kind) : '';
  const cwd = freshDir(`${kind}-cwd`);
  const args = kind !== 'baseline'
    // No add-ons unless a figure asks for one (`--addons jobset`): their CRD installation would run during the measurements.
    ? [kind === 'bound' ? boundBin : bonsaiBin, 'serve', '--port', '0', '--data', data === 'dir' ? dataDir : ':memory:', '--log-level', 'silent', '--kubeconfig', join(cwd, 'kubeconfig'), ...(extraArgs.includes('--addons') ? [] : ['--addons', '']), ...extraArgs]
    : [baselineBin, '--port', '0', '--data', dataDir || cwd];
  const spawnedAt = performance.now();
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: opts.env ? { ...process.env, ...opts.env } : process.env });
  let stderr = '';
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (d: string) => { if (stderr.length < 4000) stderr += d; });
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  const ready = new Promise<string>((res, rej) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    const onData = (d: string) => {
      out += d;
      const m = /(http:\/\/[^\s)]+)/.exec(out);
      if (m) {
        child.stdout!.off('data', onData);
        child.stdout!.resume(); // keep draining
        res(m[1].replace(/\/$/, ''));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code, sig) => rej(new Error(`${kind} exited (${code ?? sig}) before serving: ${stderr.trim().slice(0, 2000)}`)));
  });
  ready.catch(() => {}); // observed by callers; avoid unhandled rejection noise after stop()
  const proc: ServerProc = {
    kind, child, pid: child.pid!, spawnedAt, ready, dataDir,
    async stop() {
      live.delete(proc);
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const t = setTimeout(() => child.kill('SIGKILL'), 3000);
        await exited;
        clearTimeout(t);
      }
      child.stdout?.destroy();
      child.stderr?.destroy();
    },
  };
  live.add(proc);
  return proc;
}

/** Resident set size and its peak in MB, from /proc/<pid>/status. */
export function rssOf(pid: number): { rssMB: number; hwmMB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, hwmMB: kb('VmHWM') / 1024 };
}

/** CPU seconds (user + system) used so far by a process, from /proc/<pid>/stat (assumes USER_HZ = 100). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields after "pid (comm)", starting at #3
  return (Number(fields[11]) + Number(fields[12])) / 100; // #14 utime, #15 stime
}

/** Stops every server still running and removes the scratch directory. */
export async function cleanup(): Promise<void> {
  await Promise.all([...live].map((p) => p.stop()));
  rmSync(scratch, { recursive: true, force: true });
}

/** Synchronous last resort (process 'exit' handler): kill what is left, by pid. */
export function killAllSync(): void {
  for (const p of live) {
    try { p.child.kill('SIGKILL'); } catch { /* already gone */ }
  }
  try { rmSync(scratch, { recursive: true, force: true }); } catch { /* ignore */ }
}
