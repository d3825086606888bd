// Each exec session's budget: the CPU time its shell spends, and the memory its shell fills (variables, and every
// byte its commands produce). The interpreter runs in slices of a few ms and yields to the event loop between them,
// so other requests never wait long behind a shell; a session that spends its budget ends as a killed process would.
import { LimitError } from './signals.js';

export interface BudgetLimits {
  /** CPU time a session may spend, in ms (measured per slice with process.cpuUsage). */
  cpuMs: number;
  /**
   * Bytes a session's commands may produce in all (output to the terminal, pipes, command substitutions and files,
   * and values assigned to variables): counted as produced, not as held, so it bounds what the session allocates.
   */
  memoryBytes: number;
  /** Variables one shell may hold at once (part of the memory budget: each command's environment is built from them). */
  maxVars: number;
}

export const defaultBudget: Readonly<BudgetLimits> = { cpuMs: 10_000, memoryBytes: 64 << 20, maxVars: 10_000 };

/** How long the interpreter runs before it yields to the event loop. */
export const sliceMs = 4;

/** The session's budget is spent: the session ends (exit code 137, as a killed process ends). */
export class BudgetExhausted extends Error {
  readonly exitCode = 137;
}

function mib(bytes: number): string {
  return `${Number((bytes / 2 ** 20).toFixed(2))} MiB`;
}

export class SessionBudget {
  /** CPU time charged so far, in microseconds. */
  cpuUs = 0;
  /** Bytes charged so far. */
  bytes = 0;
  /** The longest slice so far, in ms of wall time (a figure for the bench). */
  longestSliceMs = 0;
  private sliceStart: number | undefined;
  private sliceCpu: NodeJS.CpuUsage | undefined;
  private slice = 0;
  protected spent: BudgetExhausted | undefined;

  constructor(readonly limits: BudgetLimits = defaultBudget) {}

  /**
   * Called at every step of the interpreter: throws once the budget is spent; after `sliceMs` of work, returns a
   * Promise to await (it resolves on the next turn of the event loop).
   */
  tick(): Promise<void> | undefined {
    if (this.spent) throw this.spent;
    if (this.sliceStart === undefined) {
      this.startSlice();
      return undefined;
    }
    if (performance.now() - this.sliceStart < sliceMs) return undefined;
    this.pause();
    return new Promise((resolve) => setImmediate(() => {
      if (this.sliceStart === undefined) this.startSlice();
      resolve();
    }));
  }

  /** Ends the running slice (charging it) before the session waits: for a timer, for input, for its next line. */
  pause(): void {
    if (this.sliceStart === undefined) return;
    const d = process.cpuUsage(this.sliceCpu);
    this.cpuUs += d.user + d.system;
    this.longestSliceMs = Math.max(this.longestSliceMs, performance.now() - this.sliceStart);
    this.sliceStart = undefined;
    if (this.cpuUs > this.limits.cpuMs * 1000 && !this.spent) {
      this.spent = new BudgetExhausted(`sh: CPU budget of ${this.limits.cpuMs / 1000} s exhausted; session ended`);
    }
  }

  /** Counts `n` bytes the session produced; throws when that spends the memory budget. */
  charge(n: number): void {
    this.bytes += n;
    if (this.bytes > this.limits.memoryBytes) this.exhaust(`sh: memory budget of ${mib(this.limits.memoryBytes)} exhausted; session ended`);
    if (this.spent) throw this.spent;
  }

  /** Ends the session for a reason of its own (a limit that is part of the budget). */
  exhaust(message: string): never {
    this.spent ??= new BudgetExhausted(message);
    throw this.spent;
  }

  /** What ends a program that built a word longer than the shell takes (`message` says what). */
  tooLong(message: string): Error {
    return new LimitError(message);
  }

  /** The error that ended the session, if its budget is spent. */
  get exhausted(): BudgetExhausted | undefined {
    return this.spent;
  }

  /** Runs synchronous `work` as a slice of its own, charged to the budget (throws first when the budget is spent). */
  charged<T>(work: () => T): T {
    if (this.spent) throw this.spent;
    this.pause();
    this.startSlice();
    try {
      return work();
    } finally {
      this.pause();
    }
  }

  private startSlice(): void {
    this.sliceStart = performance.now();
    this.sliceCpu = process.cpuUsage();
    // Should the interpreter stop without saying so (a wait not marked with pause, the end of the session), the
    // slice ends on the event loop's next turn at the latest.
    const slice = ++this.slice;
    setImmediate(() => {
      if (slice === this.slice) this.pause();
    });
  }
}
