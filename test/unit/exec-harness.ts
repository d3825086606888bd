// Drives the simulated container runtime in process: a kubelet harness (manual clock) with running pods, and fake
// sessions whose output is collected and whose input a test feeds.
import { clientFor } from '../../src/client/client.js';
import { newRuntime } from '../../src/exec/index.js';
import type { SimRuntime } from '../../src/exec/runtime.js';
import type { Outcome, Session } from '../../src/exec/types.js';
import type { KObject } from '../../src/machinery/types.js';
import { Harness, podSpec } from './kubelet-harness.js';
import type { BudgetLimits } from '../../src/exec/shell/budget.js';

export { Harness, podSpec };

/** An input stream a test writes to and ends. */
export class Feed implements AsyncIterable<Buffer> {
  private readonly queue: Buffer[] = [];
  private ended = false;
  private wake: (() => void) | undefined;
  push(data: string | Buffer): void {
    this.queue.push(typeof data === 'string' ? Buffer.from(data) : data);
    this.wake?.();
  }
  end(): void {
    this.ended = true;
    this.wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      if (this.queue.length) yield this.queue.shift()!;
      else if (this.ended) return;
      else await new Promise<void>((r) => (this.wake = r));
    }
  }
}

export interface Run {
  session: Session;
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout contains `text` (fails after `ms`). */
  waitOut(text: string | RegExp, ms?: number): Promise<void>;
  abort(): void;
}

export function fakeSession(h: Harness, pod: string, command: string[], opts: { tty?: boolean; stdin?: AsyncIterable<Buffer>; container?: string; namespace?: string } = {}): Run {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const ac = new AbortController();
  const waiters = new Set<() => void>();
  const text = (b: Buffer[]) => Buffer.concat(b).toString('utf8');
  const session: Session = {
    client: clientFor(h.reg), namespace: opts.namespace ?? 'default', pod, container: opts.container ?? 'c', command, tty: opts.tty ?? false, stdin: opts.stdin,
    stdout: { write: (d) => (out.push(Buffer.from(d)), waiters.forEach((w) => w())) },
    stderr: { write: (d) => err.push(Buffer.from(d)) },
    onResize: () => undefined,
    signal: ac.signal,
  };
  return {
    session, stdout: () => text(out), stderr: () => text(err), abort: () => ac.abort(),
    waitOut: (want, ms = 2000) => new Promise((resolve, reject) => {
      const check = () => {
        const s = text(out);
        if (typeof want === 'string' ? s.includes(want) : want.test(s)) {
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`timed out waiting for ${String(want)} in ${JSON.stringify(text(out))}`));
      }, ms);
      waiters.add(check);
      check();
    }),
  };
}

let rt: SimRuntime | undefined;
export async function runtime(): Promise<SimRuntime> {
  return (rt ??= newRuntime());
}

/** Runs a non-interactive exec; returns its outcome and output. */
export async function exec(h: Harness, pod: string, command: string[], opts: Parameters<typeof fakeSession>[3] = {}): Promise<Outcome & { out: string; err: string }> {
  const r = fakeSession(h, pod, command, opts);
  const o = await (await runtime()).exec(r.session);
  return { ...o, out: r.stdout(), err: r.stderr() };
}

export async function createObject(h: Harness, group: string, version: string, plural: string, namespace: string, obj: Record<string, unknown>): Promise<KObject> {
  const def = h.reg.find(group, version, plural)!;
  return await h.reg.create(def, namespace, obj as KObject);
}

/** Runs `run` with sessions started under other budget limits (e.g. a small CPU budget for a bomb), then restores them. */
export async function withBudget<T>(limits: Partial<BudgetLimits>, run: () => Promise<T>): Promise<T> {
  const rt = await runtime();
  const saved = rt.budget;
  rt.budget = { ...saved, ...limits };
  try {
    return await run();
  } finally {
    rt.budget = saved;
  }
}
