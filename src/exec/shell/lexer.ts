// Splits shell source into words (kept as parts for later expansion), operators and redirections.
import type { Word, WordPart } from './ast.js';

export type Token =
  | { k: 'word'; word: Word; text: string }
  | { k: 'op'; v: '&&' | '||' | ';' | '&' | '|' | '(' | ')' | '\n' }
  | { k: 'redir'; fd: number; op: '>' | '>>' | '<' | '>&' }
  | { k: 'eof' };

export class ShellSyntaxError extends Error {}

const meta = new Set(['|', '&', ';', '(', ')', '<', '>', ' ', '\t', '\n']);
const specialVars = new Set(['?', '$', '#', '@', '*', '!', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
const nameStart = /[A-Za-z_]/;
const nameChar = /[A-Za-z0-9_]/;

export class Lexer {
  private i = 0;
  constructor(private readonly s: string) {}

  private skipBlanks(): void {
    const s = this.s;
    for (;;) {
      const c = s[this.i];
      if (c === ' ' || c === '\t' || c === '\r') this.i++;
      else if (c === '\\' && s[this.i + 1] === '\n') this.i += 2;
      else if (c === '#') {
        while (this.i < s.length && s[this.i] !== '\n') this.i++;
      } else return;
    }
  }

  next(): Token {
    this.skipBlanks();
    const s = this.s;
    if (this.i >= s.length) return { k: 'eof' };
    const c = s[this.i];
    const two = s.slice(this.i, this.i + 2);
    if (two === '&&' || two === '||') {
      this.i += 2;
      return { k: 'op', v: two };
    }
    if (c === ';' || c === '&' || c === '|' || c === '(' || c === ')' || c === '\n') {
      this.i++;
      return { k: 'op', v: c };
    }
    const fdm = /^(\d?)(>>|>&|>\||>|<)/.exec(s.slice(this.i, this.i + 4));
    if (fdm) {
      this.i += fdm[0].length;
      const op = fdm[2] === '>|' ? '>' : (fdm[2] as '>' | '>>' | '<' | '>&');
      const fd = fdm[1] ? Number(fdm[1]) : op === '<' ? 0 : 1;
      return { k: 'redir', fd, op };
    }
    const start = this.i;
    const word = this.word(false);
    return { k: 'word', word, text: s.slice(start, this.i) };
  }

  /** A word up to the next blank or operator (or, inside `${...}`, up to the closing brace). */
  private word(inBrace: boolean): Word {
    const s = this.s;
    const parts: WordPart[] = [];
    let lit = '';
    const flush = () => {
      if (lit) parts.push({ t: 'lit', v: lit, quoted: false });
      lit = '';
    };
    while (this.i < s.length) {
      const c = s[this.i];
      if (inBrace ? c === '}' : meta.has(c)) break;
      if (c === '\\') {
        flush();
        const n = s[this.i + 1];
        this.i += 2;
        if (n === undefined) break;
        if (n !== '\n') parts.push({ t: 'lit', v: n, quoted: true });
      } else if (c === "'") {
        flush();
        const end = s.indexOf("'", this.i + 1);
        if (end < 0) throw new ShellSyntaxError('unterminated quoted string');
        parts.push({ t: 'lit', v: s.slice(this.i + 1, end), quoted: true });
        this.i = end + 1;
      } else if (c === '"') {
        flush();
        this.i++;
        this.doubleQuoted(parts);
      } else if (c === '$' || c === '`') {
        flush();
        parts.push(this.dollar(false));
      } else {
        lit += c;
        this.i++;
      }
    }
    flush();
    return parts;
  }

  private doubleQuoted(parts: WordPart[]): void {
    const s = this.s;
    let lit = '';
    const flush = () => {
      parts.push({ t: 'lit', v: lit, quoted: true });
      lit = '';
    };
    for (;;) {
      if (this.i >= s.length) throw new ShellSyntaxError('unterminated quoted string');
      const c = s[this.i];
      if (c === '"') {
        this.i++;
        flush();
        return;
      }
      if (c === '\\' && '$`"\\\n'.includes(s[this.i + 1] ?? '')) {
        if (s[this.i + 1] !== '\n') lit += s[this.i + 1];
        this.i += 2;
      } else if (c === '$' || c === '`') {
        flush();
        parts.push(this.dollar(true));
      } else {
        lit += c;
        this.i++;
      }
    }
  }

  /** `$name`, `${...}`, `$(...)` or a backquoted command; a lone `$` is literal. */
  private dollar(quoted: boolean): WordPart {
    const s = this.s;
    if (s[this.i] === '`') {
      const end = s.indexOf('`', this.i + 1);
      if (end < 0) throw new ShellSyntaxError('unterminated `');
      const src = s.slice(this.i + 1, end);
      this.i = end + 1;
      return { t: 'sub', src, quoted };
    }
    const n = s[this.i + 1] ?? '';
    if (n === '(' && s[this.i + 2] === '(') {
      const end = this.matchParen(this.i + 1);
      if (s[end - 1] === ')') {
        const src = s.slice(this.i + 3, end - 1);
        this.i = end + 1;
        return { t: 'arith', src, quoted };
      }
    }
    if (n === '(') {
      const end = this.matchParen(this.i + 1);
      const src = s.slice(this.i + 2, end);
      this.i = end + 1;
      return { t: 'sub', src, quoted };
    }
    if (n === '{') {
      this.i += 2;
      let name = '';
      if (s[this.i] === '#' && s[this.i + 1] !== '}') {
        this.i++;
        name = this.name();
        if (s[this.i] !== '}') throw new ShellSyntaxError('bad substitution');
        this.i++;
        return { t: 'var', name, op: '#', quoted };
      }
      name = specialVars.has(s[this.i]) ? s[this.i++] : this.name();
      if (!name) throw new ShellSyntaxError('bad substitution');
      const opm = /^(:-|:=|:\+|-|=|\+)/.exec(s.slice(this.i, this.i + 2));
      let part: WordPart = { t: 'var', name, quoted };
      if (opm) {
        this.i += opm[0].length;
        const arg = this.word(true);
        part = { t: 'var', name, op: opm[0] as ':-', arg, quoted };
      }
      if (s[this.i] !== '}') throw new ShellSyntaxError('bad substitution');
      this.i++;
      return part;
    }
    if (specialVars.has(n)) {
      this.i += 2;
      return { t: 'var', name: n, quoted };
    }
    if (nameStart.test(n)) {
      this.i++;
      return { t: 'var', name: this.name(), quoted };
    }
    this.i++;
    return { t: 'lit', v: '$', quoted };
  }

  private name(): string {
    const s = this.s;
    const start = this.i;
    if (!nameStart.test(s[this.i] ?? '')) return '';
    while (this.i < s.length && nameChar.test(s[this.i])) this.i++;
    return s.slice(start, this.i);
  }

  /** The index of the `)` closing the `(` at `open`, skipping quotes and nested parentheses. */
  private matchParen(open: number): number {
    const s = this.s;
    let depth = 0;
    for (let j = open; j < s.length; j++) {
      const c = s[j];
      if (c === '\\') j++;
      else if (c === "'") {
        j = s.indexOf("'", j + 1);
        if (j < 0) break;
      } else if (c === '"') {
        j++;
        while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      } else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return j;
    }
    throw new ShellSyntaxError('unterminated $(');
  }
}

/** Whether a word is the unquoted literal `kw` (a reserved word where the grammar allows one). */
export function isLiteral(w: Word, kw: string): boolean {
  return w.length === 1 && w[0].t === 'lit' && !w[0].quoted && w[0].v === kw;
}

export function isName(s: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(s);
}
