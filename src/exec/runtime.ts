// The simulated container runtime behind exec, attach and port-forward: each session gets the container's view
// (environment, filesystem, network) computed from the live objects, and a shell or the HTTP responder.
import { randomBytes } from 'node:crypto';
import type { Pod } from '../generated/k8s/core/v1.js';
import type { ContainerRuntime, Outcome, Session, Sink } from './types.js';
import type { Client } from '../client/client.js';
import { logProvider } from '../kubelet/log-provider.js';
import { WritableDirs } from './container-fs.js';
import { containerShell } from './container-shell.js';
import { runContainerCommand } from './container-command.js';
import type { CommandRequest, ScriptResult } from '../kubelet/command-runner.js';
import { defaultProcess, isBusyboxLike, type ContainerInfo } from './container-info.js';
import { Network } from './network.js';
import { findTarget } from './target.js';
import type { CommandFn, Shell } from './shell/interp.js';
import { ExitSignal, LimitError } from './shell/signals.js';
import { BudgetExhausted, SessionBudget, type BudgetLimits } from './shell/budget.js';
import { LimitedOut, maxOutputBytes, readBounded, type In, type Out } from './shell/io.js';
import { interactive } from './interactive.js';
import { serveHttp } from './http-server.js';
import { respond } from './responder.js';
import { logRequest } from '../kubelet/well-known-http.js';
import { containerExited } from '../kubelet/container-exit.js';
import { listens } from './network.js';
import { FsError } from './vfs.js';

/** The longest command line (all arguments together) an exec accepts. */
export const maxCommandBytes = 256 * 1024;
const shells = new Set(['sh', 'bash', 'ash', 'dash']);

/** Terminal output: a TTY turns `\n` into `\r\n`. */
function terminal(sink: Sink, tty: boolean): Out {
  if (!tty) return sink;
  return { write: (d) => sink.write((typeof d === 'string' ? d : d.toString('utf8')).replace(/\r?\n/g, '\r\n')) };
}

interface Prepared {
  shell: Shell;
  info: ContainerInfo;
  commands: Map<string, CommandFn>;
  /** Starts a new command's abort scope (interactive sessions: Ctrl-C aborts it). */
  newCommand(): AbortController;
}

/** Runs an interactive shell to its end: its exit status, or the budget's message and 137 when it spent its budget. */
async function ended(err: Out, run: () => Promise<number>): Promise<Outcome> {
  try {
    return { exitCode: (await run()) & 255 };
  } catch (e) {
    if (!(e instanceof BudgetExhausted)) throw e;
    err.write(`${e.message}\n`);
    return { exitCode: e.exitCode };
  }
}

export class SimRuntime implements ContainerRuntime {
  /** The limits of sessions started from now on (the server's `--exec-cpu-budget`/`--exec-memory-budget`). */
  budget: BudgetLimits;

  constructor(budget: BudgetLimits) {
    this.budget = budget;
  }
  private readonly writable = new WritableDirs();
  private readonly networks = new WeakMap<Client, Network>();

  private network(client: Client): Network {
    let n = this.networks.get(client);
    if (!n) this.networks.set(client, (n = new Network(client)));
    return n;
  }

  private prepare(s: Session, pod: Pod, containerName: string): Prepared {
    const client = s.client;
    const container = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...((pod.spec?.ephemeralContainers ?? []) as [])].find((c) => c.name === containerName)!;
    let command = new AbortController();
    const onAbort = () => command.abort();
    s.signal.addEventListener('abort', onAbort, { once: true });
    const nowMs = () => client.clock.nowMs();
    const budget = new SessionBudget(this.budget);
    const info: ContainerInfo = {
      client, pod, container, hostname: pod.spec?.hostname ?? pod.metadata?.name ?? '', busybox: isBusyboxLike(container.image ?? ''),
      network: this.network(client), mainProcess: defaultProcess(container), tty: s.tty, nowMs,
      sleep: (ms) => new Promise<void>((resolve, reject) => {
        budget.pause();
        const signal = command.signal;
        if (signal.aborted) return reject(new ExitSignal(130));
        const cancel = client.clock.setTimeout(() => {
          signal.removeEventListener('abort', stop);
          resolve();
        }, ms);
        const stop = () => {
          cancel();
          reject(new ExitSignal(130));
        };
        signal.addEventListener('abort', stop, { once: true });
      }),
    };
    const { shell, commands } = containerShell(info, this.writable, budget, () => command.signal);
    return {
      shell, info, commands,
      newCommand: () => {
        command = new AbortController();
        if (s.signal.aborted) command.abort();
        return command;
      },
    };
  }

  async exec(s: Session): Promise<Outcome> {
    const t = findTarget(s.client, s.namespace, s.pod, s.container, 'exec');
    if ('error' in t) return { exitCode: 1, error: t.error.message };
    const argv = s.command;
    if (!argv.length) return { exitCode: 1, error: 'you must specify at least one command for the container' };
    // One exec is one command: its output is bounded as a command's is (the budget's end message gets past the bound).
    const out = new LimitedOut(terminal(s.stdout, s.tty));
    const err = s.tty ? out : new LimitedOut(s.stderr);
    const endErr = s.tty ? terminal(s.stdout, true) : s.stderr;
    if (argv.reduce((n, a) => n + a.length + 1, 0) > maxCommandBytes) {
      err.write('exec: argument list too long\n');
      return { exitCode: 126 };
    }
    const p = this.prepare(s, t.pod, t.container.name);
    const base = argv[0].slice(argv[0].lastIndexOf('/') + 1);
    if (shells.has(base) && (argv.length === 1 || (argv.length === 2 && /^-[il]+$/.test(argv[1]))) && (s.tty || s.stdin)) {
      const prompt = () => {
        const cwd = p.shell.cwd;
        if (p.info.busybox) return `${cwd} # `;
        const home = p.shell.vars.get('HOME') ?? '/root';
        const shown = cwd === home ? '~' : cwd.startsWith(`${home}/`) ? `~${cwd.slice(home.length)}` : cwd;
        return `root@${p.info.hostname}:${shown}# `;
      };
      s.onResize(() => undefined);
      return ended(endErr, () => interactive({ shell: p.shell, tty: s.tty, stdin: s.stdin, out, err, prompt, signal: s.signal, newCommand: p.newCommand }));
    }
    const fn = p.commands.get(base);
    if (!fn || (argv[0].includes('/') && !/^\/(usr\/)?(local\/)?s?bin\//.test(argv[0]))) {
      // As containerd reports it: the exec never started, kubectl prints `error: ` and this message.
      const id = randomBytes(32).toString('hex');
      return { exitCode: 127, error: `Internal error occurred: error executing command in container: failed to exec in container: failed to start exec "${id}": OCI runtime exec failed: exec failed: unable to start container process: exec: "${argv[0].slice(0, 1000)}": executable file not found in $PATH: unknown` };
    }
    let stdinData: Promise<Buffer> | undefined;
    const stdin: In = {
      readAll: () => {
        p.shell.budget.pause();
        return (stdinData ??= readBounded(s.stdin, undefined, s.signal));
      },
    };
    const meter = (n: number) => p.shell.budget.charge(n);
    try {
      const code = await fn({ argv, env: p.shell.env(), stdin, stdout: new LimitedOut(out, maxOutputBytes, meter), stderr: new LimitedOut(err, maxOutputBytes, meter), shell: p.shell });
      return { exitCode: code & 255 };
    } catch (e) {
      if (e instanceof ExitSignal) return { exitCode: e.code & 255 };
      if (e instanceof BudgetExhausted) {
        endErr.write(`${e.message}\n`);
        return { exitCode: e.exitCode };
      }
      if (e instanceof LimitError || e instanceof FsError) {
        err.write(`${e.message}\n`);
        return { exitCode: e instanceof LimitError ? 2 : 1 };
      }
      throw e;
    }
  }

  runCommand(req: CommandRequest): Promise<ScriptResult | undefined> {
    return runContainerCommand({ client: req.client, network: this.network(req.client), writable: this.writable }, req);
  }

  async attach(s: Session): Promise<Outcome> {
    const t = findTarget(s.client, s.namespace, s.pod, s.container, 'attach');
    if ('error' in t) return { exitCode: 1, error: t.error.message };
    const c = t.container;
    const argv = [...(c.command ?? []), ...(c.args ?? [])];
    const shellMain = argv.length ? shells.has(argv[0].slice(argv[0].lastIndexOf('/') + 1)) && argv.length === 1 : isBusyboxLike(c.image ?? '');
    if (c.stdin && shellMain && s.stdin) {
      // `kubectl run -it --image=busybox -- sh`: the container's own process is an interactive shell.
      const p = this.prepare(s, t.pod, c.name);
      const out = terminal(s.stdout, s.tty);
      const err = s.tty ? out : s.stderr;
      const outcome = await ended(err, () => interactive({ shell: p.shell, tty: s.tty, stdin: s.stdin, out, err, prompt: () => (p.info.busybox ? `${p.shell.cwd} # ` : `root@${p.info.hostname}:${p.shell.cwd}# `), signal: s.signal, newCommand: p.newCommand }));
      // The shell was the container's process: unless the client went away, it has exited and the container with it
      // (its exit code is the container's; the attach stream just ends, as the runtime's does).
      if (s.signal.aborted) return outcome;
      containerExited(s.client, t.pod.metadata?.uid ?? '', c.name, outcome.exitCode);
      return { exitCode: 0 };
    }
    const logs = logProvider(s.client);
    if (!logs) return { exitCode: 0 };
    const out = terminal(s.stdout, s.tty);
    const pod = t.pod as Parameters<typeof logs.read>[0];
    const now = logs.read(pod, c.name, false);
    const skip = 'lines' in now ? now.lines.length : 0;
    await new Promise<void>((resolve) => {
      let cancel: () => void = () => undefined;
      const done = () => {
        s.signal.removeEventListener('abort', done);
        cancel();
        resolve();
      };
      if (s.signal.aborted) return resolve();
      s.signal.addEventListener('abort', done, { once: true });
      cancel = logs.follow(pod, c.name, skip, (l) => out.write(`${l.text}\n`), done);
    });
    return { exitCode: 0 };
  }

  async portForward(conn: { client: Client; namespace: string; pod: string; port: number; input: AsyncIterable<Buffer>; output: Sink; signal: AbortSignal }): Promise<void> {
    const t = findTarget(conn.client, conn.namespace, conn.pod, '', 'portforward');
    if ('error' in t) throw new Error(t.error.message);
    if (!listens(t.pod, conn.port)) {
      // The tail of containerd's message; the protocol layer prefixes `error forwarding port N to pod P, uid : `.
      const uid = t.pod.metadata?.uid ?? '';
      const p = conn.port;
      throw new Error(`failed to execute portforward in network namespace "/var/run/netns/cni-${uid}": failed to connect to localhost:${p} inside namespace "${uid}", IPv4: dial tcp4 127.0.0.1:${p}: connect: connection refused IPv6 dial tcp6 [::1]:${p}: connect: connection refused`);
    }
    await serveHttp(conn.input, conn.output, (req) => {
      const pod = conn.client.get<Pod>('v1/pods', conn.namespace, conn.pod) ?? t.pod;
      const now = conn.client.clock.nowMs();
      const res = respond(pod, req, now);
      // kubectl port-forward connects from the pod's own loopback: the server logs the request from 127.0.0.1.
      logRequest(conn.client, pod, conn.port, { method: req.method, path: req.path, userAgent: req.headers.get('user-agent')?.slice(0, 512), remoteAddr: '127.0.0.1' }, res.status, res.body.length, now);
      return res;
    }, conn.signal);
  }
}
