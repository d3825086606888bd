// A container's own command (its spec's command and args), run in the same shell as `kubectl exec` for the kubelet:
// all at once when the container starts, with time simulated (`sleep` moves the process's clock on, nothing waits),
// its output a timeline of lines. The kubelet lays the container's logs and exit out from the result.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import type { Client } from '../client/client.js';
import type { CommandRequest, ScriptResult } from '../kubelet/command-runner.js';
import type { WritableDirs } from './container-fs.js';
import { defaultProcess, isBusyboxLike, type ContainerInfo } from './container-info.js';
import { containerShell } from './container-shell.js';
import type { Network } from './network.js';
import { runProgram, type CommandFn } from './shell/interp.js';
import { BudgetExhausted } from './shell/budget.js';
import { ExitSignal } from './shell/signals.js';
import { emptyIn, type Out } from './shell/io.js';
import { RunsOn, StepBudget, maxArgChars } from './shell/step-budget.js';

const shells = new Set(['sh', 'bash', 'ash', 'dash']);
const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);
const never = new AbortController().signal;

/** Output into the timeline: a line at a time, stamped with the process's clock when its newline is written. */
class TimelineOut implements Out {
  private partial = '';
  constructor(private readonly budget: StepBudget) {}
  write(data: string | Buffer): void {
    const parts = (this.partial + (typeof data === 'string' ? data : data.toString('utf8'))).split('\n');
    this.partial = parts.pop() ?? '';
    for (const p of parts) this.budget.print(p);
  }
  flush(): void {
    if (this.partial) this.budget.print(this.partial);
    this.partial = '';
  }
}

/** Programs that run on past what is simulated: a server the shell `exec`s, `tail -f`, `yes`. */
function runsOn(commands: ReadonlyMap<string, CommandFn>): Array<[string, CommandFn]> {
  const tail = commands.get('tail');
  const exec = commands.get('exec');
  return [
    ['yes', async () => {
      throw new RunsOn();
    }],
    ['tail', async (c) => {
      if (c.argv.some((a) => /^-[a-zA-Z]*[fF]/.test(a))) throw new RunsOn();
      return tail ? tail(c) : 0;
    }],
    ['exec', async (c) => {
      if (c.argv.length > 1 && !commands.has(base(c.argv[1]))) throw new RunsOn();
      return exec ? exec(c) : 0;
    }],
  ];
}

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export interface CommandTarget {
  client: Client;
  network: Network;
  writable: WritableDirs;
}

/**
 * What `req`'s command prints, how long it runs and how it exits; undefined when its program is not one the shell
 * has (the image's own entrypoint, a server binary) or a shell without `-c`: then the container's defaults apply.
 */
export async function runContainerCommand(t: CommandTarget, req: CommandRequest): Promise<ScriptResult | undefined> {
  const { pod, container, argv } = req;
  if (argv.length === 0) return undefined;
  const name = base(argv[0]);
  const isShell = shells.has(name);
  if (isShell && argv[1] !== '-c') return undefined;
  // Linux refuses to start a program with an argument over 128 KiB (MAX_ARG_STRLEN): the runtime fails to start it.
  if (argv.some((a) => a.length > maxArgChars)) return { lines: [{ atMs: 0, text: `exec ${argv[0]}: argument list too long` }], runMs: 0, exitCode: 128 };
  const budget = new StepBudget();
  const info = commandInfo(t, pod, container, req.startMs, budget);
  const { shell, commands } = containerShell(info, t.writable, budget, () => never, runsOn);
  if (!isShell && !commands.has(name)) return undefined;
  const out = new TimelineOut(budget);
  const io = { stdin: emptyIn, stdout: out, stderr: out };
  const script = isShell ? argv[2] ?? '' : argv.map(quote).join(' ');
  if (isShell) shell.args = [argv[3] ?? argv[0], ...argv.slice(4)];
  let exitCode = 0;
  let runMs: number | undefined;
  try {
    // Reading a script costs a step a word, and a step for each command or expansion in a word (`:;:;…`, `$x$x…`):
    // a long script takes long to read, and one too long for the step budget is cut off before it is parsed (parsing
    // 128 KiB of commands alone held the event loop for 200 ms).
    for (const words = /[^\s;&|()<>`$]+/g; words.exec(script);) {
      const yielded = budget.tick();
      if (yielded) await yielded;
    }
    exitCode = await runProgram(shell, script, io);
    runMs = budget.t;
  } catch (e) {
    if (e instanceof ExitSignal) {
      exitCode = e.code;
      runMs = budget.t;
    } else if (e instanceof BudgetExhausted) {
      out.flush();
      budget.print(e.message);
      exitCode = e.exitCode;
      runMs = budget.t;
    } else if (e instanceof RunsOn) runMs = undefined;
    else throw e;
  }
  out.flush();
  return { lines: budget.lines, runMs, exitCode: exitCode & 255 };
}

function commandInfo(t: CommandTarget, pod: Pod, container: Container, startMs: number, budget: StepBudget): ContainerInfo {
  return {
    client: t.client, pod, container, hostname: pod.spec?.hostname ?? pod.metadata?.name ?? '', busybox: isBusyboxLike(container.image ?? ''),
    network: t.network, mainProcess: defaultProcess(container), tty: false,
    nowMs: () => startMs + budget.t,
    sleep: async (ms) => budget.sleep(ms),
  };
}
