// A small interpreter for what a simulated container runs: `sleep`, `echo`, `exit`, `true`/`false`, `printenv`,
// `date`, `hostname`, and `sh -c` scripts with `;`, `&&`, `||`, pipes, `while`/`for`/`if`, quoting and `$VAR`.
// The result is a timeline (output lines at offsets) plus how long the process runs and its exit code.
import { parseScript, type Node, type Word } from './container-script.js';
import { dateText, sleepMs } from './command-time.js';
import { BudgetKilled, CommandBudget, RunsOn, maxArgChars, maxShellDepth, maxWordChars } from './command-budget.js';

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

export interface ScriptEnv {
  /** Environment variables visible to the process. */
  env: Record<string, string>;
  /** Absolute start time (ms), for `date`. */
  startMs: number;
}

export { sleepMs };

const shells = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'busybox sh']);
const known = new Set(['sleep', 'echo', 'exit', 'true', 'false', ':', 'printenv', 'env', 'date', 'hostname', 'tail', 'printf', 'yes', 'seq', 'whoami', 'pwd']);
const maxLines = 2000;
const horizonMs = 3600_000;
/** `$NAME`, `${NAME}` and `$?` in an unquoted or double-quoted part of a word. */
const varRef = /\$(\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*)|\?)/g;

const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

class Exited extends Error {
  constructor(readonly code: number) {
    super('exit');
  }
}

class Runner {
  t = 0;
  lines: ScriptLine[] = [];
  readonly budget = new CommandBudget();
  private shells = 0;
  constructor(private readonly env: Record<string, string>, private readonly startMs: number) {}

  out(text: string): void {
    this.budget.charge(text.length);
    const parts = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
    for (const p of parts) if (this.lines.length < maxLines) this.lines.push({ atMs: this.t, text: p });
  }

  /** Reading a script costs a step for each token and each piece of a word: a long script takes long to read. */
  private readonly countPiece = (): void => this.budget.step();

  /** Characters of the word being expanded so far (values substituted and template read). */
  private wordChars = 0;

  /** The value of `$name` (`$?` when name is undefined). */
  private lookup(name: string | undefined): string {
    const v = name === undefined ? String(this.env['?'] ?? '0') : this.env[name] ?? '';
    this.budget.step();
    this.grow(v.length);
    return v;
  }

  /** Counts `n` characters of the word being built: a word past `maxWordChars` ends the process as killed. */
  private grow(n: number): void {
    this.wordChars += n;
    this.budget.charge(n);
    // As the kernel ends a process past its memory: killed, exit code 137.
    if (this.wordChars > maxWordChars) throw new BudgetKilled(`sh: memory budget exhausted (a word over ${maxWordChars >> 10} KiB); process ended`);
  }

  private expandPart(p: Word[number]): string {
    this.grow(p.text.length);
    if (!p.expand || !p.text.includes('$')) return p.text;
    // One reference at a time (not String.replace, which finds every match before substituting the first): a word
    // of many references stops at the budget without reading the rest.
    let out = '';
    let last = 0;
    varRef.lastIndex = 0;
    for (let m = varRef.exec(p.text); m !== null; m = varRef.exec(p.text)) {
      out += p.text.slice(last, m.index) + this.lookup(m[2] ?? m[3]);
      last = varRef.lastIndex;
    }
    return out + p.text.slice(last);
  }

  expand(w: Word): string {
    this.wordChars = 0;
    if (w.length === 1) return this.expandPart(w[0]);
    let s = '';
    for (const p of w) s += this.expandPart(p);
    return s;
  }

  tick(): void {
    this.budget.step();
    if (this.t > horizonMs || this.lines.length >= maxLines) throw new RunsOn();
  }

  /** Runs a node. Each command and each turn of a `while` loop is a step (the nodes that group them are not). */
  run(node: Node): number {
    switch (node.type) {
      case 'seq': {
        let code = 0;
        for (let i = 0; i < node.items.length; i++) {
          const item = node.items[i];
          if (item.op === '&&' && code !== 0) continue;
          if (item.op === '||' && code === 0) continue;
          code = this.run(item.node);
          this.env['?'] = String(code);
        }
        return code;
      }
      case 'pipe': {
        let code = 0;
        for (let i = 0; i < node.items.length; i++) code = this.run(node.items[i]);
        return code;
      }
      case 'while': {
        let code = 0;
        for (;;) {
          this.tick();
          const cond = this.run(node.cond);
          if ((cond === 0) === node.until) return code;
          code = this.run(node.body);
        }
      }
      case 'for': {
        let code = 0;
        for (let i = 0; i < node.words.length; i++) {
          this.env[node.name] = this.expand(node.words[i]);
          code = this.run(node.body);
        }
        return code;
      }
      case 'if':
        if (this.run(node.cond) === 0) return this.run(node.then);
        return node.else ? this.run(node.else) : 0;
      case 'cmd': {
        this.tick();
        const argv: string[] = [];
        for (let i = 0; i < node.words.length; i++) argv.push(this.expand(node.words[i]));
        return this.exec(argv, node.assigns);
      }
    }
  }

  exec(argv: string[], assigns: Array<[string, Word]>): number {
    for (let i = 0; i < assigns.length; i++) this.env[assigns[i][0]] = this.expand(assigns[i][1]);
    if (argv.length === 0) return 0;
    // Indexed loops and no destructuring on this path: each step allocates little, so even before V8 optimizes it
    // (the first scripts a server runs) a step is cheap.
    let cmd = argv[0];
    let args = argv.slice(1);
    if (cmd === 'exec') {
      if (args.length === 0) return 0;
      [cmd, ...args] = args;
      const code = this.exec([cmd, ...args], []);
      if (!known.has(base(cmd)) && !shells.has(base(cmd))) throw new RunsOn();
      throw new Exited(code);
    }
    switch (base(cmd)) {
      case 'sleep': {
        const ms = sleepMs(args[0]);
        if (ms === undefined) throw new RunsOn();
        this.t += ms;
        if (ms > 0) this.budget.slept();
        return 0;
      }
      case 'echo': {
        let newline = true;
        let escapes = false;
        while (args[0] && /^-[neE]+$/.test(args[0])) {
          const f = args.shift()!;
          if (f.includes('n')) newline = false;
          if (f.includes('e')) escapes = true;
        }
        let text = args.join(' ');
        if (escapes) text = text.replace(/\\n/g, '\n').replace(/\\t/g, '\t');
        this.out(newline ? `${text}\n` : text);
        return 0;
      }
      case 'printf': {
        const fmt = args.shift() ?? '';
        let i = 0;
        const text = fmt.replace(/%[sd]/g, () => args[i++] ?? '').replace(/\\n/g, '\n').replace(/\\t/g, '\t');
        if (text) this.out(text);
        return 0;
      }
      case 'exit':
        throw new Exited(args[0] === undefined ? Number(this.env['?'] ?? 0) : (Number(args[0]) & 255) || 0);
      case 'true':
      case ':':
        return 0;
      case 'false':
        return 1;
      case 'printenv':
        if (args.length) {
          let code = 0;
          for (const a of args) {
            if (this.env[a] === undefined) code = 1;
            else this.out(`${this.env[a]}\n`);
          }
          return code;
        }
        this.printEnv();
        return 0;
      case 'env':
        this.printEnv();
        return 0;
      case 'date':
        this.out(`${dateText(new Date(this.startMs + this.t))}\n`);
        return 0;
      case 'hostname':
        this.out(`${this.env.HOSTNAME ?? 'localhost'}\n`);
        return 0;
      case 'whoami':
        this.out('root\n');
        return 0;
      case 'pwd':
        this.out('/\n');
        return 0;
      case 'seq': {
        const [a, b] = args.length >= 2 ? [Number(args[0]), Number(args[1])] : [1, Number(args[0])];
        for (let i = a; i <= b && this.lines.length < maxLines; i++) this.out(`${i}\n`);
        return 0;
      }
      case 'yes':
        throw new RunsOn();
      case 'tail':
        if (args.includes('-f') || args.includes('-F')) throw new RunsOn();
        return 0;
      default:
        if (shells.has(base(cmd)) && args[0] === '-c') {
          if (++this.shells > maxShellDepth) throw new Error('shells nested too deeply');
          this.runScript(args[1] ?? '');
          this.shells--;
          return Number(this.env['?'] ?? 0);
        }
        return 0;
    }
  }

  printEnv(): void {
    for (const [k, v] of Object.entries(this.env)) if (k !== '?') this.out(`${k}=${v}\n`);
  }

  runScript(script: string): number {
    this.budget.charge(script.length);
    const code = this.run(parseScript(script, this.countPiece));
    this.env['?'] = String(code);
    return code;
  }
}

/** Whether `interpret` runs anything for this command line (false: it returns undefined, the image's own process runs). */
export function scripted(command: string[] | undefined, args: string[] | undefined): boolean {
  const first = command?.length ? command[0] : args?.[0];
  if (first === undefined) return false;
  const name = base(first);
  const second = command?.length ? (command.length > 1 ? command[1] : args?.[0]) : args?.[1];
  return (shells.has(name) && second === '-c') || known.has(name);
}

/**
 * What `command` + `args` do, or undefined when the program is not one the interpreter knows (the image's own
 * entrypoint, a server binary): then the container's defaults apply.
 */
export function interpret(command: string[] | undefined, args: string[] | undefined, env: ScriptEnv): ScriptResult | undefined {
  const argv = command?.length ? [...command, ...(args ?? [])] : [...(args ?? [])];
  if (argv.length === 0) return undefined;
  const name = base(argv[0]);
  const isShell = shells.has(name) && argv[1] === '-c';
  if (!isShell && !known.has(name)) return undefined;
  // Linux refuses to start a program with an argument over 128 KiB (MAX_ARG_STRLEN): the runtime fails to start it.
  if (argv.some((a) => a.length > maxArgChars)) return { lines: [{ atMs: 0, text: `exec ${argv[0]}: argument list too long` }], runMs: 0, exitCode: 128 };
  const runner = new Runner(Object.assign(Object.create(null) as Record<string, string>, env.env), env.startMs);
  let exitCode = 0;
  let runMs: number | undefined;
  try {
    if (isShell) exitCode = runner.runScript(argv[2] ?? '');
    else exitCode = runner.exec(argv, []);
    runMs = runner.t;
  } catch (e) {
    if (e instanceof Exited) {
      exitCode = e.code;
      runMs = runner.t;
    } else if (e instanceof BudgetKilled) {
      runner.lines.push({ atMs: runner.t, text: e.message });
      exitCode = e.exitCode;
      runMs = runner.t;
    } else if (e instanceof RunsOn) runMs = undefined;
    else {
      // A script the parser cannot read runs like the shell would fail on it: a syntax error, exit 2.
      const message = e instanceof Error ? e.message : String(e);
      return { lines: [{ atMs: 0, text: `${name}: ${message}` }], runMs: 0, exitCode: 2 };
    }
  }
  return { lines: runner.lines, runMs, exitCode };
}
