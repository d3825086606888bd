// How the kubelet learns what a container's own command does: the server installs a runner (the simulated
// runtime's shell, src/exec/container-command.ts, the same shell `kubectl exec` runs), which runs the command all
// at once with time simulated. Running it takes a moment of real time: a container waits to start until its
// command's result is in (its pod is woken then), and starts at the time it was due, so nothing of the pod's timeline
// moves.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';
import type { Client } from '../client/client.js';

export interface ScriptLine {
  /** Offset from the container's start, in ms. */
  atMs: number;
  text: string;
}

export interface ScriptResult {
  lines: ScriptLine[];
  /** Time until the process exits; undefined when it runs until it is stopped. */
  runMs: number | undefined;
  exitCode: number;
}

export interface CommandRequest {
  /** The kubelet's client: the shell's commands read the cluster through it (nslookup, wget). */
  client: Client;
  pod: Pod;
  container: Container;
  /** command + args (a preStop hook's command). */
  argv: string[];
  /** When the process starts (clock ms): `date` prints from it. */
  startMs: number;
}

/** undefined: not a program the shell knows (the image's own entrypoint), the container's defaults apply. */
export type CommandRunner = (req: CommandRequest) => Promise<ScriptResult | undefined>;

const runners = new ServerSlot<{ run?: CommandRunner }>('command runner', () => ({}));

export function setCommandRunner(reg: ServerStateHolder, run: CommandRunner | undefined): void {
  reg.state(runners).run = run;
}

export function commandRunner(reg: ServerStateHolder): CommandRunner | undefined {
  return reg.state(runners).run;
}

/** A command's result as the kubelet asks for it: undefined (no script), the result, or still running. */
export type Lookup = ScriptResult | undefined | 'pending';

/**
 * The results of the commands run for one kubelet simulation, by pod uid and start: asked for again until they are
 * in, taken once they are. A result coming in wakes its pod.
 */
export class CommandResults {
  private readonly byUid = new Map<string, Map<string, Lookup>>();

  constructor(private readonly client: Client, private readonly wake: (pod: Pod) => void, private readonly failed: (err: unknown) => void) {}

  /** `container`'s command started at `startMs` (`what` tells a hook from the container's own run). */
  take(pod: Pod, container: Container, argv: string[], startMs: number, what = 'run'): Lookup {
    const run = commandRunner(this.client);
    if (!run || argv.length === 0) return undefined;
    const uid = pod.metadata?.uid ?? '';
    let mine = this.byUid.get(uid);
    if (!mine) this.byUid.set(uid, (mine = new Map()));
    const key = `${container.name}/${what}/${startMs}`;
    if (mine.has(key)) {
      const got = mine.get(key);
      // A container's run is taken once; a hook's result stays (several hooks are waited for together).
      if (got !== 'pending' && what === 'run') mine.delete(key);
      return got;
    }
    mine.set(key, 'pending');
    run({ client: this.client, pod, container, argv, startMs }).then((r) => r, (err: unknown) => {
      this.failed(err);
      return undefined;
    }).then((r) => {
      const now = this.byUid.get(uid);
      if (now?.get(key) !== 'pending') return;
      now.set(key, r);
      this.wake(pod);
    });
    return 'pending';
  }

  forget(uid: string): void {
    this.byUid.delete(uid);
  }
}

/** A container's command line: its command and args (args alone run the image's entrypoint with them). */
export function commandLine(c: Container): string[] {
  return c.command?.length ? [...c.command, ...(c.args ?? [])] : [...(c.args ?? [])];
}

const shells = new Set(['sh', 'bash', 'ash', 'dash', 'zsh']);
const common = new Set(['sleep', 'echo', 'exit', 'true', 'false', ':', 'printenv', 'env', 'date', 'hostname', 'tail', 'printf', 'yes', 'seq', 'whoami', 'pwd', 'cat', 'ls', 'wget', 'curl', 'nslookup']);

/**
 * Whether a command line is a script or a common program the shell runs (its plan comes from running it), not the
 * image's own process: a pod running one is not left dormant at a restart (pod-dormant.ts).
 */
export function scripted(command: string[] | undefined, args: string[] | undefined): boolean {
  const argv = commandLine({ name: '', command, args });
  if (!argv.length) return false;
  const name = argv[0].slice(argv[0].lastIndexOf('/') + 1);
  return (shells.has(name) && argv[1] === '-c') || common.has(name);
}
