// Runs parsed shell programs: expansion, pipelines (stages run in turn, each one's output buffered into the next's
// input), and-or lists, compound commands, redirections. Every session has a CPU and memory budget shared by nested
// shells (budget.ts); each step of the interpreter counts against it and yields to the event loop every few ms.
import type { AndOr, Command, List, Pipeline } from './ast.js';
import { parse } from './parser.js';
import { ShellSyntaxError } from './lexer.js';
import { Collector, LimitedOut, bufferIn, maxOutputBytes, type In, type Io, type Out } from './io.js';
import { noFiles, redirect, type Redirected } from './redirect.js';
import { FsError, type Vfs } from '../vfs.js';
import { ArithError } from './arith.js';
import { Expander } from './expand.js';
import { SessionBudget } from './budget.js';
import { Env } from './env.js';
import { Vars } from './vars.js';
import { ExitSignal, LimitError, maxWordBytes } from './signals.js';

/** What one command invocation gets. */
export interface CmdContext {
  argv: string[];
  /** The exported variables under the command's own `NAME=value` prefixes, read in place. */
  readonly env: Env;
  stdin: In;
  stdout: Out;
  stderr: Out;
  shell: Shell;
}
export type CommandFn = (c: CmdContext) => Promise<number>;

/** What the shell needs from the container around it. */
export interface ShellHost {
  fs: Vfs;
  nowMs(): number;
  commands: ReadonlyMap<string, CommandFn>;
  signal: AbortSignal;
  /** Output goes to a terminal. */
  tty?: boolean;
}

export const maxShellDepth = 16;

export class Shell {
  vars: Vars;
  cwd: string;
  status = 0;
  args: string[];
  /** Expands words in this shell's state. */
  readonly ex: Expander = new Expander(this);

  constructor(readonly host: ShellHost, readonly budget: SessionBudget, readonly depth: number, init: { vars: Vars; cwd: string; args: string[] }) {
    this.vars = init.vars;
    this.cwd = init.cwd;
    this.args = init.args;
  }

  /** A child shell (a subshell, `sh -c`, a command substitution): a copy of the state, one level deeper. */
  child(args?: string[]): Shell {
    if (this.depth + 1 > maxShellDepth) throw new LimitError('sh: shells nested too deeply');
    return new Shell(this.host, this.budget, this.depth + 1, { vars: this.vars.fork(), cwd: this.cwd, args: args ?? [...this.args] });
  }

  /** Assigns a variable; its bytes count against the memory budget, and so does a full variable table. */
  setVar(name: string, value: string): void {
    const max = this.budget.limits.maxVars;
    if (!this.vars.has(name) && this.vars.size >= max) this.budget.exhaust(`sh: memory budget exhausted (more than ${max} variables); session ended`);
    const v = value.length > maxWordBytes ? value.slice(0, maxWordBytes) : value;
    this.budget.charge(name.length + v.length);
    this.vars.set(name, v);
  }

  /** The environment a command gets: the exported variables under its own `NAME=value` prefixes. */
  env(assigns: Iterable<[string, string]> = []): Env {
    return new Env(this.vars, new Map(assigns));
  }

  /**
   * Counts one step against the budget: throws once it is spent (or the command was interrupted); a Promise to await
   * when the slice is over. Commands that loop over their input call it too.
   */
  step(): Promise<void> | undefined {
    if (this.host.signal.aborted) throw new ExitSignal(130);
    return this.budget.tick();
  }

  /**
   * Parses and runs `src` (`parsed`: what parsing it gave already, a list or the syntax error); syntax errors print as
   * sh prints them and give status 2.
   */
  async runSource(src: string, io: { stdin: In; stdout: Out; stderr: Out }, parsed?: List | ShellSyntaxError): Promise<number> {
    let list: List;
    try {
      if (parsed instanceof ShellSyntaxError) throw parsed;
      list = parsed ?? parse(src);
    } catch (e) {
      if (e instanceof ShellSyntaxError) {
        io.stderr.write(`sh: syntax error: ${e.message}\n`);
        return (this.status = 2);
      }
      throw e;
    }
    return this.runList(list, io);
  }

  async runList(list: List, io: Io): Promise<number> {
    for (const item of list.items) await this.runAndOr(item, io);
    return this.status;
  }

  // Most lines are one pipeline of one command: the two steps below pass its promise on rather than awaiting it
  // in a promise of their own (they run at every step of a loop).
  private runAndOr(a: AndOr, io: Io): Promise<void> {
    return a.rest.length ? this.runChain(a, io) : this.runPipeline(a.first, io);
  }

  private async runChain(a: AndOr, io: Io): Promise<void> {
    await this.runPipeline(a.first, io);
    for (const r of a.rest) {
      if ((r.op === '&&') === (this.status === 0)) await this.runPipeline(r.p, io);
    }
  }

  private runPipeline(p: Pipeline, io: Io): Promise<void> {
    return p.cmds.length === 1 && !p.bang ? this.runCommand(p.cmds[0], io) : this.runStages(p, io);
  }

  private async runStages(p: Pipeline, io: Io): Promise<void> {
    let stdin = io.stdin;
    for (let i = 0; i < p.cmds.length; i++) {
      const last = i === p.cmds.length - 1;
      if (last) await this.runCommand(p.cmds[i], { ...io, stdin });
      else {
        const pipe = new Collector();
        // Every stage but the last runs in a subshell, as in sh: its variables and `exit` stay inside it.
        const sub = this.child();
        try {
          await sub.runCommand(p.cmds[i], { ...io, stdin, stdout: pipe });
        } catch (e) {
          if (!(e instanceof ExitSignal)) throw e;
        }
        stdin = bufferIn(pipe.buffer());
      }
    }
    if (p.bang) this.status = this.status === 0 ? 1 : 0;
  }

  async runCommand(c: Command, io: Io): Promise<void> {
    const yielded = this.step();
    if (yielded) await yielded;
    let redirected: Redirected;
    try {
      // Most commands have no redirections: no promise for them (this runs at every step).
      redirected = c.redirs.length ? await redirect(this, c.redirs, io) : { ...io, finish: noFiles };
    } catch (e) {
      if (e instanceof FsError) {
        io.stderr.write(`sh: can't ${e.reason === 'No such file or directory' ? 'open' : 'create'} ${e.path}: ${e.reason}\n`);
        this.status = 1;
        return;
      }
      throw e;
    }
    try {
      await (c.t === 'simple' ? this.runSimple(c, redirected) : this.runBare(c, redirected));
    } catch (e) {
      if (!(e instanceof ArithError)) throw e;
      io.stderr.write(`sh: arithmetic ${e.message}\n`);
      this.status = 2;
    } finally {
      redirected.finish();
    }
  }

  private async runBare(c: Exclude<Command, { t: 'simple' }>, io: Io): Promise<void> {
    switch (c.t) {
      case 'group':
        if (!c.subshell) {
          await this.runList(c.body, io);
          return;
        }
        {
          const sub = this.child();
          try {
            this.status = await sub.runList(c.body, io);
          } catch (e) {
            if (!(e instanceof ExitSignal)) throw e;
            this.status = e.code;
          }
        }
        return;
      case 'if':
        for (const cl of c.clauses) {
          await this.runList(cl.cond, io);
          if (this.status === 0) {
            await this.runList(cl.body, io);
            return;
          }
        }
        this.status = 0;
        if (c.otherwise) await this.runList(c.otherwise, io);
        return;
      case 'for': {
        const items = c.items ? await this.ex.words(c.items, io) : this.args.slice(1);
        this.status = 0;
        for (const v of items) {
          const yielded = this.step();
          if (yielded) await yielded;
          this.setVar(c.name, v);
          await this.runList(c.body, io);
        }
        return;
      }
      case 'while': {
        let last = 0;
        for (;;) {
          const yielded = this.step();
          if (yielded) await yielded;
          await this.runList(c.cond, io);
          if ((this.status === 0) === c.until) break;
          await this.runList(c.body, io);
          last = this.status;
        }
        this.status = last;
        return;
      }
    }
  }

  private async runSimple(c: Extract<Command, { t: 'simple' }>, io: Io): Promise<void> {
    const argv = await this.ex.words(c.words, io);
    const assigns: [string, string][] = [];
    for (const a of c.assigns) assigns.push([a.name, await this.ex.string(a.value, io)]);
    if (!argv.length) {
      for (const [n, v] of assigns) this.setVar(n, v);
      this.status = this.ex.lastSubStatus ?? 0;
      this.ex.lastSubStatus = undefined;
      return;
    }
    this.ex.lastSubStatus = undefined;
    const name = argv[0];
    const fn = this.host.commands.get(name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name);
    if (!fn || (name.includes('/') && !/^\/(usr\/)?(s?bin)\//.test(name))) {
      io.stderr.write(`sh: ${name}: not found\n`);
      this.status = 127;
      return;
    }
    // What a command prints counts against the memory budget, whether or not it gets past the output limit.
    const meter = (n: number) => this.budget.charge(n);
    const stdout = new LimitedOut(io.stdout, maxOutputBytes, meter);
    const stderr = new LimitedOut(io.stderr, maxOutputBytes, meter);
    try {
      this.status = await fn({ argv, env: this.env(assigns), stdin: io.stdin, stdout, stderr, shell: this });
    } catch (e) {
      if (e instanceof FsError) {
        stderr.write(`${name}: ${e.message}\n`);
        this.status = 1;
      } else throw e;
    }
  }

}


/** Runs a program in `sh` as `sh -c` would: returns its exit status, `exit N` included. */
export async function runProgram(sh: Shell, src: string, io: Io): Promise<number> {
  try {
    return await sh.runSource(src, io);
  } catch (e) {
    if (e instanceof ExitSignal) return e.code;
    if (e instanceof LimitError) {
      io.stderr.write(`${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

/** A new session's top shell, with the container's environment (all exported) and its own budget. */
export function sessionShell(host: ShellHost, budget: SessionBudget, env: Map<string, string>, cwd: string): Shell {
  return new Shell(host, budget, 0, { vars: new Vars(env, new Set(env.keys())), cwd, args: ['sh'] });
}
