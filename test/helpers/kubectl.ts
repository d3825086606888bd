// Runs the real kubectl binary against a test server, with its own cache dir.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { minWaitMs, waitDeadline } from './wait.js';

export const kubectlBinary = process.env.KUBECTL ?? '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A kubectl left running (a watch, a drain): what it printed so far, and a way to stop it. */
export interface Background {
  readonly proc: ChildProcessWithoutNullStreams;
  /** stdout so far. */
  out(): string;
  /** stderr so far. */
  err(): string;
  /** Resolves with the exit code once it has exited. */
  exited: Promise<number | null>;
  stop(): void;
}

export class Kubectl {
  readonly cacheDir = mkdtempSync(join(tmpdir(), 'bonsai-kubecache-'));
  constructor(readonly kubeconfig: string, readonly binary = kubectlBinary) {}

  private env(extra?: Record<string, string>): NodeJS.ProcessEnv {
    return { ...process.env, KUBECONFIG: this.kubeconfig, KUBECACHEDIR: this.cacheDir, HOME: this.cacheDir, ...extra };
  }

  /** Starts kubectl without waiting for it (e.g. `get -w`); stop() it when done. */
  start(args: string[]): Background {
    const proc = spawn(this.binary, args, { env: this.env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.stdin.end();
    const exited = new Promise<number | null>((resolve) => proc.on('close', (code) => resolve(code)));
    return { proc, out: () => stdout, err: () => stderr, exited, stop: () => void proc.kill() };
  }

  run(args: string[], opts: { input?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const p = spawn(this.binary, args, { env: this.env(opts.env), stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      p.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const t = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
      p.on('error', reject);
      p.on('close', (code) => {
        clearTimeout(t);
        resolve({ code, stdout, stderr });
      });
      p.stdin.on('error', () => undefined); // kubectl may exit before reading stdin (EPIPE): its exit code tells
      p.stdin.end(opts.input ?? '');
    });
  }

  /**
   * Runs independent commands (reads, or writes to distinct objects), `limit` at a time, and returns their results in
   * the order given: for a test that checks many outputs, each as if run alone.
   */
  async runMany(argsList: string[][], limit = 4): Promise<KubectlResult[]> {
    const results: KubectlResult[] = new Array(argsList.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < argsList.length; i = next++) results[i] = await this.run(argsList[i]);
    };
    await Promise.all(Array.from({ length: Math.min(limit, argsList.length) }, worker));
    return results;
  }

  /** Runs and fails the test with the output when the exit code is not 0. */
  async ok(args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<string> {
    // A command expected to succeed waits (`wait`, `rollout status --timeout=Ns`) at least the wait floor: the
    // deadline only matters when the test fails anyway, and a loaded machine needs longer.
    const floorS = minWaitMs / 1000;
    const raised = args.map((a) => a.replace(/^--timeout=(\d+)s$/, (_, n: string) => `--timeout=${Math.max(Number(n), floorS)}s`));
    const r = await this.run(raised, { ...opts, timeoutMs: minWaitMs + 60_000 });
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
    return r.stdout;
  }

  /** Runs and expects failure; returns stderr. */
  async fails(args: string[], opts: { input?: string } = {}): Promise<string> {
    const r = await this.run(args, opts);
    if (r.code === 0) throw new Error(`kubectl ${args.join(' ')} unexpectedly succeeded\nstdout: ${r.stdout}`);
    return r.stderr;
  }
}

/** Polls until fn returns a truthy value or the deadline passes. */
export async function eventually<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + waitDeadline(timeoutMs);
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
