// Word expansion for the shell: parameters (with the `:-`, `:=`, `:+`, `#` forms), command substitution,
// arithmetic, and field splitting of unquoted results. Bounded by the word and argument-list limits.
import type { Word } from './ast.js';
import { Collector, type Io } from './io.js';
import { evalArith } from './arith.js';
import { ExitSignal, LimitError, maxWordBytes } from './signals.js';
import type { SessionBudget } from './budget.js';
import type { Vars } from './vars.js';

/** What expansion reads and changes of the shell it works in (interp.ts's Shell). */
export interface ExpansionShell {
  readonly vars: Vars;
  readonly args: readonly string[];
  status: number;
  readonly budget: SessionBudget;
  setVar(name: string, value: string): void;
  /** A command substitution's shell. */
  child(): ExpansionShell & { runSource(src: string, io: Io): Promise<number> };
}

export class Expander {
  /** The status of the last command substitution (an assignment-only command's status). */
  lastSubStatus: number | undefined;
  constructor(private readonly sh: ExpansionShell) {}


  private get(n: string): string | undefined {
    if (n === '?') return String(this.sh.status);
    if (n === '$') return '1';
    if (n === '!') return '';
    if (n === '-') return '';
    if (n === '#') return String(Math.max(0, this.sh.args.length - 1));
    if (n === '@' || n === '*') return this.sh.args.slice(1).join(' ');
    if (/^\d$/.test(n)) return this.sh.args[Number(n)];
    return this.sh.vars.get(n);
  }

  /**
   * A part's value when no command has to run for it (`$x`, `${#x}`, `$((...))`: most parts), without a promise:
   * expansion runs at every step of a loop. Undefined for the others.
   */
  private now(part: Exclude<Word[number], { t: 'lit' }>): string | undefined {
    if (part.t === 'arith') return this.arith(part.src);
    if (part.t !== 'var' || (part.op !== undefined && part.op !== '#')) return undefined;
    const v = this.get(part.name);
    return part.op === '#' ? String((v ?? '').length) : v ?? '';
  }

  private arith(src: string): string {
    const expr = src.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*|[?#$])\}?/g, (_, n: string) => (n === '?' ? String(this.sh.status) : this.sh.vars.get(n) ?? '0'));
    return String(evalArith(expr, (n) => this.sh.vars.get(n)));
  }

  private async value(part: Extract<Word[number], { t: 'var' }>, io: Io): Promise<string> {
    const v = this.get(part.name);
    switch (part.op) {
      case undefined:
        return v ?? '';
      case '#':
        return String((v ?? '').length);
      case ':-':
        return v ? v : this.string(part.arg ?? [], io);
      case '-':
        return v !== undefined ? v : this.string(part.arg ?? [], io);
      case ':=':
      case '=': {
        if (part.op === ':=' ? v : v !== undefined) return v!;
        const d = await this.string(part.arg ?? [], io);
        this.sh.setVar(part.name, d);
        return d;
      }
      case ':+':
        return v ? this.string(part.arg ?? [], io) : '';
      case '+':
        return v !== undefined ? this.string(part.arg ?? [], io) : '';
    }
  }

  private async substitute(src: string, io: Io): Promise<string> {
    const sub = this.sh.child();
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
    return this.arith(part.src);
  }

  /** A word's fields after expansion and field splitting (unquoted expansions split on blanks). */
  private async word(w: Word, io: Io): Promise<string[]> {
    const fields: string[] = [];
    let cur = '';
    let started = false;
    for (const part of w) {
      if (part.t === 'lit') {
        cur += part.v;
        started = true;
        continue;
      }
      const v = this.now(part) ?? (await this.partValue(part, io));
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
      if (cur.length > maxWordBytes) throw this.sh.budget.tooLong('sh: word too long');
    }
    if (started) fields.push(cur);
    return fields;
  }

  async words(words: Word[], io: Io): Promise<string[]> {
    const out: string[] = [];
    let bytes = 0;
    for (const w of words) {
      // A plain word (a command's name, most arguments) is its one field as it stands.
      const plain = w.length === 1 && w[0].t === 'lit' ? w[0].v : undefined;
      for (const f of plain !== undefined ? [plain] : await this.word(w, io)) {
        bytes += f.length;
        if (bytes > maxWordBytes || out.length >= 10_000) throw new LimitError('sh: argument list too long');
        out.push(f);
      }
    }
    return out;
  }

  async string(w: Word, io: Io): Promise<string> {
    let s = '';
    for (const part of w) {
      s += part.t === 'lit' ? part.v : this.now(part) ?? (await this.partValue(part, io));
      if (s.length > maxWordBytes) throw this.sh.budget.tooLong('sh: word too long');
    }
    return s;
  }
}
