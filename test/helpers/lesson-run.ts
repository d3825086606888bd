// A scripted learner's view of `bonsai lesson NAME`: the lesson runs as a child process against a test's server; the
// test reads what it printed, waits for lines, and checks its ✓ lines and exit code.
import { spawn, type ChildProcess } from 'node:child_process';
import { binPath } from './server.js';

/** A running `bonsai lesson`: what it printed so far, waits for lines, its exit code. */
export class LessonRun {
  private out = '';
  private readonly proc: ChildProcess;
  private readonly waiters = new Set<() => void>();
  readonly exited: Promise<number | null>;

  constructor(name: string, kubeconfig: string) {
    this.proc = spawn(process.execPath, [binPath, 'lesson', name, '--kubeconfig', kubeconfig], { stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (d: Buffer) => {
      this.out += d.toString();
      for (const w of this.waiters) w();
    };
    this.proc.stdout!.on('data', onData);
    this.proc.stderr!.on('data', onData);
    this.exited = new Promise((resolve) => this.proc.on('close', (code) => {
      for (const w of this.waiters) w();
      resolve(code);
    }));
  }

  output(): string {
    return this.out;
  }

  checks(): string[] {
    return this.out.split('\n').filter((l) => l.startsWith('✓ '));
  }

  /** Waits until the output matches `re` (the lesson printed it), failing with the output so far. */
  waitFor(re: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const m = this.out.match(re);
        if (m) done(() => resolve(m));
        else if (this.proc.exitCode !== null) done(() => reject(new Error(`the lesson exited ${this.proc.exitCode} before printing ${re}:\n${this.out}`)));
      };
      const t = setTimeout(() => done(() => reject(new Error(`no ${re} in ${timeoutMs} ms; the lesson printed:\n${this.out}`))), timeoutMs);
      const done = (f: () => void) => {
        clearTimeout(t);
        this.waiters.delete(check);
        f();
      };
      this.waiters.add(check);
      check();
    });
  }

  async finished(timeoutMs = 30_000): Promise<number | null> {
    let t: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (t = setTimeout(() => reject(new Error(`the lesson did not finish in ${timeoutMs} ms:\n${this.out}`)), timeoutMs)));
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(t);
      if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    }
  }

  interrupt(): void {
    this.proc.kill('SIGINT');
  }

  /** Ends the process if it still runs (for a test's `finally`). */
  stop(): void {
    if (this.proc.exitCode === null && this.proc.signalCode === null) this.proc.kill('SIGKILL');
  }
}

/** The ✓ lines' texts before the colon, in order. */
export function checkTitles(run: LessonRun): string[] {
  return run.checks().map((l) => l.split(':')[0]);
}
