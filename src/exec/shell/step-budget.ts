// The budget of a container's own command (container-command.ts): the shell runs it all at once when the container
// starts, with time simulated, so its work is bounded by counts, never by CPU time: the same pod gives the same logs
// and exit code on any machine. The run hands the event loop back every few ms of work (as an exec session does), so
// no script holds it for long, and the worst one ends within some tens of ms.
//  - steps: every command, every turn of a loop and every word of the script read is a step. A run that spends
//    `maxSteps` has been cut off: the process runs on past what was simulated (a `while true; do date; sleep 1;
//    done` loop), as it does past the horizon (an hour) or past `maxLines` lines of output.
//  - busy steps: steps since the process last slept. A loop that never sleeps spins on the CPU; after `maxBusySteps`
//    it is ended as an exec session whose CPU budget is spent (exit 137, a line saying so).
//  - bytes: what the run builds (variables assigned, output). Past `maxBytes` the process is ended as killed for its
//    memory (exit 137), as is a single word past the shell's word limit.
import { BudgetExhausted, SessionBudget } from './budget.js';
import { maxWordBytes } from './signals.js';

export const maxSteps = 10_000;
export const maxBusySteps = 5_000;
export const maxBytes = 4 << 20;
/** Linux's limit on one argument of a program (MAX_ARG_STRLEN): a longer `sh -c` script never starts. */
export const maxArgChars = 128 * 1024;
export const maxLines = 2000;
export const horizonMs = 3600_000;

/** The simulation stops following the process (it runs on): its timeline so far is kept. */
export class RunsOn extends Error {}

export interface TimelineLine {
  /** Offset from the container's start, in ms. */
  atMs: number;
  text: string;
}

export class StepBudget extends SessionBudget {
  steps = 0;
  busy = 0;
  /** The process's own clock: ms since it started (sleep moves it on). */
  t = 0;
  readonly lines: TimelineLine[] = [];

  constructor() {
    super({ cpuMs: Infinity, memoryBytes: maxBytes, maxVars: 10_000 });
  }

  /**
   * One step; throws when the run is cut off or spins too long without sleeping. Like an exec session's, it hands the
   * event loop back after a slice of work (a Promise to await): what the run gives depends on its counts only, never
   * on when it yields (its CPU time is not limited).
   */
  override tick(): Promise<void> | undefined {
    if (this.spent) throw this.spent;
    if (++this.steps > maxSteps || this.t > horizonMs || this.lines.length >= maxLines) throw new RunsOn();
    if (++this.busy > maxBusySteps) this.exhaust(`sh: CPU budget of ${maxBusySteps} steps without a sleep exhausted; process ended`);
    return super.tick();
  }

  override charge(n: number): void {
    this.bytes += n;
    if (this.bytes > maxBytes) this.exhaust(`sh: memory budget of ${maxBytes >> 20} MiB exhausted; process ended`);
    if (this.spent) throw this.spent;
  }

  override tooLong(): Error {
    // As the kernel ends a process past its memory: killed, exit code 137.
    return (this.spent ??= new BudgetExhausted(`sh: memory budget exhausted (a word over ${maxWordBytes >> 10} KiB); process ended`));
  }

  /** `sleep`: the process's clock moves on; sleeping forever runs on past what is simulated. */
  sleep(ms: number): void {
    if (!Number.isFinite(ms)) throw new RunsOn();
    this.t += ms;
    if (ms > 0) this.busy = 0;
  }

  /** A line the process printed now. */
  print(text: string): void {
    if (this.lines.length < maxLines) this.lines.push({ atMs: this.t, text });
  }
}
