// Runs parsed shell programs: expansion, pipelines (stages run in turn, each one's output buffered into the next's
// input), and-or lists, compound commands, redirections. Every session has a step budget shared by nested shells.
import type { AndOr, Command, List, Pipeline, Redir, Word } from './ast.js';
import { parse } from './parser.js';
import { ShellSyntaxError } from './lexer.js';
import { Collector, LimitedOut, bufferIn, maxOutputBytes, nullOut, type In, type Out } from './io.js';
import { FsError, resolvePath, type Vfs } from '../vfs.js';
import { ArithError, evalArith } from './arith.js';

export class ExitSignal {
  constructor(readonly code: number) {}
}
export class LimitError extends Error {}

/** What one command invocation gets. */
export interface CmdContext {
  argv: string[];
  /** The exported variables (and the command's own `NAME=value` prefixes). */
  env: Map<string, string>;
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
}

export interface Budget {
  steps: number;
}

export const maxSteps = 200_000;
export const maxShellDepth = 16;
export const maxWordBytes = 256 * 1024;
export const maxVarCount = 10_000;

export class Shell {
  vars: Map<string, string>;
  exported: Set<string>;
  cwd: string;
  status = 0;
  args: string[];

  constructor(readonly host: ShellHost, readonly budget: Budget, readonly depth: number, init: { vars: Map<string, string>; exported: Set<string>; cwd: string; args: string[] }) {
    this.vars = init.vars;
    this.exported = init.exported;
    this.cwd = init.cwd;
    this.args = init.args;
  }

  /** A child shell (a subshell, `sh -c`, a command substitution): a copy of the state, one level deeper. */
  child(args?: string[]): Shell {
    if (this.depth + 1 > maxShellDepth) throw new LimitError('sh: too many nested shells');
    return new Shell(this.host, this.budget, this.depth + 1, { vars: new Map(this.vars), exported: new Set(this.exported), cwd: this.cwd, args: args ?? [...this.args] });
  }

  setVar(name: string, value: string): void {
    if (!this.vars.has(name) && this.vars.size >= maxVarCount) throw new LimitError('sh: too many variables');
    this.vars.set(name, value.length > maxWordBytes ? value.slice(0, maxWordBytes) : value);
  }

  envMap(): Map<string, string> {
    const env = new Map<string, string>();
    for (const n of this.exported) {
      const v = this.vars.get(n);
      if (v !== undefined) env.set(n, v);
    }
    return env;
  }

  private async step(): Promise<void> {
    if (--this.budget.steps < 0) throw new LimitError('sh: command limit reached');
    if (this.host.signal.aborted) throw new ExitSignal(130);
    if (this.budget.steps % 500 === 0) await new Promise((r) => setImmediate(r));
  }

  /** Parses and runs `src`; syntax errors print as sh prints them and give status 2. */
  async runSource(src: string, io: { stdin: In; stdout: Out; stderr: Out }): Promise<number> {
    let list: List;
    try {
      list = parse(src);
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

  private async runAndOr(a: AndOr, io: Io): Promise<void> {
    await this.runPipeline(a.first, io);
    for (const r of a.rest) {
      if ((r.op === '&&') === (this.status === 0)) await this.runPipeline(r.p, io);
    }
  }

  private async runPipeline(p: Pipeline, io: Io): Promise<void> {
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
    await this.step();
    let redirected: Io & { finish(): void };
    try {
      redirected = await this.redirect(c.redirs, io);
    } catch (e) {
      if (e instanceof FsError) {
        io.stderr.write(`sh: can't ${e.reason === 'No such file or directory' ? 'open' : 'create'} ${e.path}: ${e.reason}\n`);
        this.status = 1;
        return;
      }
      throw e;
    }
    try {
      await this.runBare(c, redirected);
    } catch (e) {
      if (!(e instanceof ArithError)) throw e;
      io.stderr.write(`sh: arithmetic ${e.message}\n`);
      this.status = 2;
    } finally {
      redirected.finish();
    }
  }

  private async runBare(c: Command, io: Io): Promise<void> {
    switch (c.t) {
      case 'simple':
        return this.runSimple(c, io);
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
        const items = c.items ? await this.expandWords(c.items, io) : this.args.slice(1);
        this.status = 0;
        for (const v of items) {
          await this.step();
          this.setVar(c.name, v);
          await this.runList(c.body, io);
        }
        return;
      }
      case 'while': {
        let last = 0;
        for (;;) {
          await this.step();
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
    const argv = await this.expandWords(c.words, io);
    const assigns: [string, string][] = [];
    for (const a of c.assigns) assigns.push([a.name, await this.expandString(a.value, io)]);
    if (!argv.length) {
      for (const [n, v] of assigns) this.setVar(n, v);
      if (!c.redirs.length || this.status !== 0) this.status = this.lastSubStatus ?? 0;
      this.lastSubStatus = undefined;
      return;
    }
    this.lastSubStatus = undefined;
    const env = this.envMap();
    for (const [n, v] of assigns) env.set(n, v);
    const name = argv[0];
    const fn = this.host.commands.get(name.includes('/') ? name.slice(name.lastIndexOf('/') + 1) : name);
    if (!fn || (name.includes('/') && !/^\/(usr\/)?(s?bin)\//.test(name))) {
      io.stderr.write(`sh: ${name}: not found\n`);
      this.status = 127;
      return;
    }
    const stdout = new LimitedOut(io.stdout);
    const stderr = new LimitedOut(io.stderr);
    try {
      this.status = await fn({ argv, env, stdin: io.stdin, stdout, stderr, shell: this });
    } catch (e) {
      if (e instanceof FsError) {
        stderr.write(`${name}: ${e.message}\n`);
        this.status = 1;
      } else throw e;
    }
  }

  private lastSubStatus: number | undefined;

  /** Sets up a command's redirections; `finish` writes collected file output once the command is done. */
  private async redirect(redirs: Redir[], io: Io): Promise<Io & { finish(): void }> {
    const out: Io = { ...io };
    const files: { fd: number; path: string; append: boolean; c: Collector }[] = [];
    for (const r of redirs) {
      const target = await this.expandString(r.target, io);
      if (r.op === '>&') {
        const src = target === '1' ? out.stdout : target === '2' ? out.stderr : undefined;
        if (!src) throw new FsError(target, 'No such file or directory');
        if (r.fd === 1) out.stdout = src;
        else if (r.fd === 2) out.stderr = src;
        continue;
      }
      const path = resolvePath(this.cwd, target);
      if (r.op === '<') {
        out.stdin = target === '/dev/null' ? bufferIn(Buffer.alloc(0)) : bufferIn(this.host.fs.readFile(path));
        continue;
      }
      let sink: Out;
      if (path === '/dev/null') sink = nullOut;
      else if (path === '/dev/stdout') sink = io.stdout;
      else if (path === '/dev/stderr') sink = io.stderr;
      else {
        // Fail now as sh does when the file cannot be created; the content is written when the command ends.
        this.host.fs.writeFile(path, Buffer.alloc(0), r.op === '>>', this.host.nowMs());
        const c = new Collector(maxOutputBytes);
        files.push({ fd: r.fd, path, append: true, c });
        sink = c;
      }
      if (r.fd === 1) out.stdout = sink;
      else if (r.fd === 2) out.stderr = sink;
    }
    return {
      ...out,
      finish: () => {
        for (const f of files) {
          try {
            this.host.fs.writeFile(f.path, f.c.buffer(), f.append, this.host.nowMs());
          } catch (e) {
            if (!(e instanceof FsError)) throw e;
            io.stderr.write(`sh: write error: ${e.reason}\n`);
          }
        }
      },
    };
  }

  // ---- expansion ----

  private async value(part: Extract<Word[number], { t: 'var' }>, io: Io): Promise<string> {
    const get = (n: string): string | undefined => {
      if (n === '?') return String(this.status);
      if (n === '$') return '1';
      if (n === '!') return '';
      if (n === '-') return '';
      if (n === '#') return String(Math.max(0, this.args.length - 1));
      if (n === '@' || n === '*') return this.args.slice(1).join(' ');
      if (/^\d$/.test(n)) return this.args[Number(n)];
      return this.vars.get(n);
    };
    const v = get(part.name);
    switch (part.op) {
      case undefined:
        return v ?? '';
      case '#':
        return String((v ?? '').length);
      case ':-':
        return v ? v : this.expandString(part.arg ?? [], io);
      case '-':
        return v !== undefined ? v : this.expandString(part.arg ?? [], io);
      case ':=':
      case '=': {
        if (part.op === ':=' ? v : v !== undefined) return v!;
        const d = await this.expandString(part.arg ?? [], io);
        this.setVar(part.name, d);
        return d;
      }
      case ':+':
        return v ? this.expandString(part.arg ?? [], io) : '';
      case '+':
        return v !== undefined ? this.expandString(part.arg ?? [], io) : '';
    }
  }

  private async substitute(src: string, io: Io): Promise<string> {
    const sub = this.child();
    const out = new Collector();
    try {
      await sub.runSource(src, { stdin: io.stdin, stdout: out, stderr: io.stderr });
    } catch (e) {
      if (!(e instanceof ExitSignal)) throw e;
      sub.status = e.code;
    }
    this.lastSubStatus = sub.status;
    return out.text().replace(/\n+$/, '');
  }

  private async partValue(part: Exclude<Word[number], { t: 'lit' }>, io: Io): Promise<string> {
    if (part.t === 'var') return this.value(part, io);
    if (part.t === 'sub') return this.substitute(part.src, io);
    const src = part.src.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*|[?#$])\}?/g, (_, n: string) => (n === '?' ? String(this.status) : this.vars.get(n) ?? '0'));
    return String(evalArith(src, (n) => this.vars.get(n)));
  }

  /** A word's fields after expansion and field splitting (unquoted expansions split on blanks). */
  private async expandWord(w: Word, io: Io): Promise<string[]> {
    const fields: string[] = [];
    let cur = '';
    let started = false;
    for (const part of w) {
      if (part.t === 'lit') {
        cur += part.v;
        started = true;
        continue;
      }
      const v = await this.partValue(part, io);
      if (part.quoted) {
        cur += v;
        started = true;
        continue;
      }
      const pieces = v.split(/[ \t\n]+/);
      pieces.forEach((piece, i) => {
        if (i > 0) {
          if (started) fields.push(cur);
          cur = '';
          started = false;
        }
        cur += piece;
        if (piece) started = true;
      });
      if (cur.length > maxWordBytes) throw new LimitError('sh: word too long');
    }
    if (started) fields.push(cur);
    return fields;
  }

  async expandWords(words: Word[], io: Io): Promise<string[]> {
    const out: string[] = [];
    let bytes = 0;
    for (const w of words) {
      for (const f of await this.expandWord(w, io)) {
        bytes += f.length;
        if (bytes > maxWordBytes || out.length >= 10_000) throw new LimitError('sh: argument list too long');
        out.push(f);
      }
    }
    return out;
  }

  async expandString(w: Word, io: Io): Promise<string> {
    let s = '';
    for (const part of w) {
      s += part.t === 'lit' ? part.v : await this.partValue(part, io);
      if (s.length > maxWordBytes) throw new LimitError('sh: word too long');
    }
    return s;
  }
}

export interface Io {
  stdin: In;
  stdout: Out;
  stderr: Out;
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
