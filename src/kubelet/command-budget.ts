// What one run of a container's command may cost the kubelet. The interpreter runs synchronously (the pod's plan is
// needed at once), so its work is bounded by counts, never by time: the same pod gives the same logs and exit code on
// any machine, and even the worst script ends within a few ms of work.
//  - steps: every command, every turn of a loop, every variable substituted and every token (or piece of a word)
//    of a script read is a step. A run that spends `maxSteps` has been cut off: the process
//    runs on past what was simulated (a `while true; do date; sleep 1; done` loop), as it does past the horizon.
//  - busy steps: steps since the process last slept. A loop that never sleeps spins on the CPU; after `maxBusySteps`
//    it is ended as the exec shell ends a session whose CPU budget is spent (exit 137, a line saying so).
//  - bytes: what the run builds (each word expanded, its template read, each line printed). Past `maxBytes` the
//    process is ended as killed for its memory (exit 137), as is a single word past `maxWordChars`.

export const maxSteps = 10_000;
export const maxBusySteps = 5_000;
export const maxBytes = 4 << 20;
export const maxWordChars = 256 * 1024;
/** Linux's limit on one argument of a program (MAX_ARG_STRLEN): a longer `sh -c` script never starts. */
export const maxArgChars = 128 * 1024;
/** `sh -c` inside `sh -c` …: each level recurses in the interpreter. */
export const maxShellDepth = 16;

/** The process is ended by its budget: exit code 137, as a killed process ends, with `message` as its last log line. */
export class BudgetKilled extends Error {
  readonly exitCode = 137;
}

/** The simulation stops following the process (it runs on): its timeline so far is kept. */
export class RunsOn extends Error {}

export class CommandBudget {
  steps = 0;
  busy = 0;
  bytes = 0;

  /** One step; throws when the run is cut off or spins too long without sleeping. */
  step(): void {
    if (++this.steps > maxSteps) throw new RunsOn();
    if (++this.busy > maxBusySteps) throw new BudgetKilled(`sh: CPU budget of ${maxBusySteps} steps without a sleep exhausted; process ended`);
  }

  /** The process sleeps: it does not spin. */
  slept(): void {
    this.busy = 0;
  }

  /** Counts `n` bytes built; throws past the memory budget. */
  charge(n: number): void {
    this.bytes += n;
    if (this.bytes > maxBytes) throw new BudgetKilled(`sh: memory budget of ${maxBytes >> 20} MiB exhausted; process ended`);
  }
}
