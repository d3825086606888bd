// Recursive-descent parser for the shell subset in ast.ts, with a nesting bound (hostile input: `((((...`).
import type { AndOr, Command, List, Pipeline, Redir, Word } from './ast.js';
import { Lexer, ShellSyntaxError, isLiteral, isName, type Token } from './lexer.js';

export const maxNesting = 64;
/**
 * Words and operators one parse may read. Parsing is one synchronous stretch of work (a few µs a token), so a script
 * of 128 KiB of `:;` would hold the event loop for hundreds of ms: past this many tokens it is refused instead.
 */
export const maxTokens = 20_000;
const reserved = new Set(['then', 'elif', 'else', 'fi', 'do', 'done', '}', 'in']);

export function parse(src: string): List {
  const p = new Parser(src);
  const list = p.list(new Set());
  const t = p.peek();
  if (t.k !== 'eof') throw new ShellSyntaxError(`unexpected ${describe(t)}`);
  return list;
}

function describe(t: Token): string {
  if (t.k === 'eof') return 'end of file';
  if (t.k === 'op') return t.v === '\n' ? 'newline' : `"${t.v}"`;
  if (t.k === 'redir') return 'redirection';
  return `"${t.text}"`;
}

class Parser {
  private readonly lx: Lexer;
  private la: Token | undefined;
  private depth = 0;
  private tokens = 0;
  constructor(src: string) {
    this.lx = new Lexer(src);
  }

  peek(): Token {
    if (this.la) return this.la;
    if (++this.tokens > maxTokens) throw new ShellSyntaxError(`script too long (more than ${maxTokens} words and operators at once)`);
    return (this.la = this.lx.next());
  }
  private take(): Token {
    const t = this.peek();
    this.la = undefined;
    return t;
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.k === 'op' && t.v === v;
  }
  private isKw(kw: string): boolean {
    const t = this.peek();
    return t.k === 'word' && isLiteral(t.word, kw);
  }
  private expectKw(kw: string): void {
    if (!this.isKw(kw)) throw new ShellSyntaxError(`unexpected ${describe(this.peek())} (expecting "${kw}")`);
    this.take();
  }
  private newlines(): void {
    while (this.isOp('\n')) this.take();
  }
  private enter(): void {
    if (++this.depth > maxNesting) throw new ShellSyntaxError('nested too deeply');
  }

  /** And-or lists separated by `;`, `&` or newlines, up to end of input, `)` or one of `stop`'s reserved words. */
  list(stop: Set<string>): List {
    this.enter();
    const items: AndOr[] = [];
    for (;;) {
      this.newlines();
      const t = this.peek();
      if (t.k === 'eof' || (t.k === 'op' && t.v === ')')) break;
      if (t.k === 'word' && t.word.length === 1 && t.word[0].t === 'lit' && !t.word[0].quoted && stop.has(t.word[0].v)) break;
      items.push(this.andOr());
      const n = this.peek();
      if (n.k === 'op' && (n.v === ';' || n.v === '&' || n.v === '\n')) this.take();
      else break;
    }
    this.depth--;
    return { items };
  }

  private andOr(): AndOr {
    const first = this.pipeline();
    const rest: AndOr['rest'] = [];
    for (;;) {
      const t = this.peek();
      if (t.k !== 'op' || (t.v !== '&&' && t.v !== '||')) break;
      this.take();
      this.newlines();
      rest.push({ op: t.v, p: this.pipeline() });
    }
    return { first, rest };
  }

  private pipeline(): Pipeline {
    let bang = false;
    if (this.isKw('!')) {
      this.take();
      bang = true;
    }
    const cmds = [this.command()];
    while (this.isOp('|')) {
      this.take();
      this.newlines();
      cmds.push(this.command());
    }
    return { bang, cmds };
  }

  private command(): Command {
    const t = this.peek();
    if (t.k === 'word' && t.word.length === 1 && t.word[0].t === 'lit' && !t.word[0].quoted) {
      const kw = t.word[0].v;
      if (kw === 'if') return this.withRedirs(this.ifClause());
      if (kw === 'for') return this.withRedirs(this.forClause());
      if (kw === 'while' || kw === 'until') return this.withRedirs(this.whileClause(kw === 'until'));
      if (kw === '{') {
        this.take();
        this.enter();
        const body = this.list(new Set(['}']));
        this.expectKw('}');
        this.depth--;
        return this.withRedirs({ t: 'group', subshell: false, body, redirs: [] });
      }
      if (reserved.has(kw)) throw new ShellSyntaxError(`unexpected "${kw}"`);
    }
    if (t.k === 'op' && t.v === '(') {
      this.take();
      this.enter();
      const body = this.list(new Set());
      if (!this.isOp(')')) throw new ShellSyntaxError(`unexpected ${describe(this.peek())} (expecting ")")`);
      this.take();
      this.depth--;
      return this.withRedirs({ t: 'group', subshell: true, body, redirs: [] });
    }
    return this.simple();
  }

  private withRedirs<C extends Command>(c: C): C {
    while (this.peek().k === 'redir') c.redirs.push(this.redir());
    return c;
  }

  private redir(): Redir {
    const r = this.take() as Extract<Token, { k: 'redir' }>;
    const w = this.take();
    if (w.k !== 'word') throw new ShellSyntaxError(`unexpected ${describe(w)}`);
    return { fd: r.fd, op: r.op, target: w.word };
  }

  private simple(): Command {
    const assigns: { name: string; value: Word }[] = [];
    const words: Word[] = [];
    const redirs: Redir[] = [];
    for (;;) {
      const t = this.peek();
      if (t.k === 'redir') {
        redirs.push(this.redir());
        continue;
      }
      if (t.k !== 'word') break;
      this.take();
      const first = t.word[0];
      const eq = first?.t === 'lit' && !first.quoted ? first.v.indexOf('=') : -1;
      if (!words.length && eq > 0 && first.t === 'lit' && isName(first.v.slice(0, eq))) {
        const rest = first.v.slice(eq + 1);
        const value: Word = rest ? [{ t: 'lit', v: rest, quoted: false }, ...t.word.slice(1)] : t.word.slice(1);
        assigns.push({ name: first.v.slice(0, eq), value });
      } else words.push(t.word);
    }
    if (!assigns.length && !words.length && !redirs.length) throw new ShellSyntaxError(`unexpected ${describe(this.peek())}`);
    return { t: 'simple', assigns, words, redirs };
  }

  private ifClause(): Command {
    this.take();
    const clauses: { cond: List; body: List }[] = [];
    let otherwise: List | undefined;
    for (;;) {
      const cond = this.list(new Set(['then']));
      this.expectKw('then');
      const body = this.list(new Set(['elif', 'else', 'fi']));
      clauses.push({ cond, body });
      if (this.isKw('elif')) {
        this.take();
        continue;
      }
      if (this.isKw('else')) {
        this.take();
        otherwise = this.list(new Set(['fi']));
      }
      this.expectKw('fi');
      return { t: 'if', clauses, otherwise, redirs: [] };
    }
  }

  private forClause(): Command {
    this.take();
    const n = this.take();
    if (n.k !== 'word' || !isName(n.text)) throw new ShellSyntaxError(`bad for loop variable`);
    let items: Word[] | undefined;
    this.newlines();
    if (this.isKw('in')) {
      this.take();
      items = [];
      for (let t = this.peek(); t.k === 'word'; t = this.peek()) items.push((this.take() as Extract<Token, { k: 'word' }>).word);
    }
    if (this.isOp(';')) this.take();
    this.newlines();
    this.expectKw('do');
    const body = this.list(new Set(['done']));
    this.expectKw('done');
    return { t: 'for', name: n.text, items, body, redirs: [] };
  }

  private whileClause(until: boolean): Command {
    this.take();
    const cond = this.list(new Set(['do']));
    this.expectKw('do');
    const body = this.list(new Set(['done']));
    this.expectKw('done');
    return { t: 'while', until, cond, body, redirs: [] };
  }
}
