// Starts a real `bonsai serve` child process on a random port with a fresh data dir.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

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

export async function startServer(opts: { dataDir?: string; args?: string[] } = {}): Promise<ServerHandle> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'bonsai-e2e-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  const proc = spawn(process.execPath, [binPath, 'serve', '--port', '0', '--data', dataDir, ...(opts.args ?? [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`server did not start in 15s: ${out}${err}`)), 15_000);
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
    },
  };
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
