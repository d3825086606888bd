// The shell subset the container interpreter reads: words with quoting and `$VAR`, `;` `&&` `||` `|` `&`,
// newlines, and the compound commands `while`/`until`, `for … in`, `if … then … else … fi`.

/** A word as parts: quoted-single parts are literal, the rest have `$VAR` expanded when run. */
export type Word = Array<{ text: string; expand: boolean }>;

export type Node =
  | { type: 'seq'; items: Array<{ op: ';' | '&&' | '||'; node: Node }> }
  | { type: 'pipe'; items: Node[] }
  | { type: 'while'; cond: Node; body: Node; until: boolean }
  | { type: 'for'; name: string; words: Word[]; body: Node }
  | { type: 'if'; cond: Node; then: Node; else?: Node }
  | { type: 'cmd'; words: Word[]; assigns: Array<[string, Word]> };

type Token = { kind: 'word'; word: Word; raw: string; quoted: boolean } | { kind: 'op'; op: string };

/** A run of characters that are neither special nor quoting: taken in one piece. */
const plainRun = /[^\s;&|<>'"\\]+/y;
/** Inside double quotes: the next character that is not taken as is. */
const quoteStop = /["\\]/g;

/**
 * The script's tokens. `onPiece` is called for each token and for each piece of a word (a quoted string, an escaped
 * character): the interpreter counts them against its budget, so that a long script costs what it takes to read.
 */
export function tokenize(src: string, onPiece: () => void = () => undefined): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    onPiece();
    const ch = src[i];
    if (ch === ' ' || ch === '\t') {
      i++;
      continue;
    }
    if (ch === '#') {
      while (i < src.length && src[i] !== '\n') i++;
      continue;
    }
    if (ch === '\n' || ch === ';') {
      out.push({ kind: 'op', op: ';' });
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '&&' || two === '||') {
      out.push({ kind: 'op', op: two });
      i += 2;
      continue;
    }
    if (ch === '|' || ch === '&') {
      out.push({ kind: 'op', op: ch });
      i++;
      continue;
    }
    if (ch === '>' || ch === '<') {
      // Redirections: skip the operator and its target (output to files is not simulated).
      i++;
      if (src[i] === '>' || src[i] === '&') i++;
      while (src[i] === ' ') i++;
      while (i < src.length && !/[\s;&|]/.test(src[i])) i++;
      continue;
    }
    const word: Word = [];
    const start = i;
    let quoted = false;
    while (i < src.length && !/[\s;&|<>]/.test(src[i])) {
      onPiece();
      const c = src[i];
      plainRun.lastIndex = i;
      if (plainRun.test(src)) {
        word.push({ text: src.slice(i, plainRun.lastIndex), expand: true });
        i = plainRun.lastIndex;
      } else if (c === "'") {
        const end = src.indexOf("'", i + 1);
        if (end < 0) throw new Error('syntax error: unterminated quoted string');
        word.push({ text: src.slice(i + 1, end), expand: false });
        quoted = true;
        i = end + 1;
      } else if (c === '"') {
        const [text, end] = doubleQuoted(src, i + 1, onPiece);
        word.push({ text, expand: true });
        quoted = true;
        i = end + 1;
      } else if (c === '\\' && i + 1 < src.length) {
        word.push({ text: src[i + 1], expand: false });
        i += 2;
      } else {
        word.push({ text: c, expand: true });
        i++;
      }
    }
    out.push({ kind: 'word', word: merge(word), raw: src.slice(start, i), quoted });
  }
  return out;
}

/** The text of a double-quoted string from `from` (after its opening quote), and the index of its closing quote. */
function doubleQuoted(src: string, from: number, onPiece: () => void): [string, number] {
  let text = '';
  let j = from;
  for (;;) {
    quoteStop.lastIndex = j;
    const m = quoteStop.exec(src);
    if (!m) throw new Error('syntax error: unterminated quoted string');
    text += src.slice(j, m.index);
    j = m.index;
    if (src[j] === '"') return [text, j];
    onPiece();
    if (j + 1 < src.length && '"\\$`'.includes(src[j + 1])) {
      // An escaped dollar is marked so that it survives expansion as a literal "$".
      text += src[j + 1] === '$' ? '\u0000' : src[j + 1];
      j += 2;
    } else {
      text += '\\';
      j++;
    }
  }
}

function merge(w: Word): Word {
  const out: Word = [];
  for (const p of w) {
    const last = out[out.length - 1];
    if (last && last.expand === p.expand) last.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

const reserved = new Set(['do', 'done', 'then', 'else', 'elif', 'fi', 'in']);

/** Compound commands nested deeper than this are refused: parsing and running them recurse. */
const maxNesting = 100;

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Token[]) {}

  private peekWord(): string | undefined {
    const t = this.toks[this.i];
    return t && t.kind === 'word' && !t.quoted ? t.raw : undefined;
  }
  private peekOp(): string | undefined {
    const t = this.toks[this.i];
    return t && t.kind === 'op' ? t.op : undefined;
  }
  private expectWord(w: string): void {
    this.skipSeparators();
    if (this.peekWord() !== w) throw new Error(`syntax error: expected "${w}"`);
    this.i++;
  }
  private skipSeparators(): void {
    while (this.peekOp() === ';') this.i++;
  }

  /** A list up to one of the `stop` keywords (or the end). */
  list(stop: string[] = []): Node {
    const items: Array<{ op: ';' | '&&' | '||'; node: Node }> = [];
    let op: ';' | '&&' | '||' = ';';
    for (;;) {
      this.skipSeparators();
      const w = this.peekWord();
      if (this.i >= this.toks.length || (w !== undefined && stop.includes(w))) break;
      items.push({ op, node: this.pipeline() });
      const next = this.peekOp();
      if (next === '&&' || next === '||') {
        op = next;
        this.i++;
      } else if (next === ';' || next === '&') {
        op = ';';
        this.i++;
      } else if (next === undefined) {
        const nw = this.peekWord();
        if (this.i < this.toks.length && (nw === undefined || !stop.includes(nw))) throw new Error(`syntax error near unexpected token "${nw ?? ''}"`);
        op = ';';
      }
    }
    return { type: 'seq', items };
  }

  private pipeline(): Node {
    const items = [this.command()];
    while (this.peekOp() === '|') {
      this.i++;
      items.push(this.command());
    }
    return items.length === 1 ? items[0] : { type: 'pipe', items };
  }

  private command(): Node {
    if (++this.depth > maxNesting) throw new Error('syntax error: compound commands nested too deeply');
    try {
      return this.compound();
    } finally {
      this.depth--;
    }
  }

  private compound(): Node {
    const w = this.peekWord();
    if (w === 'while' || w === 'until') {
      this.i++;
      const cond = this.list(['do']);
      this.expectWord('do');
      const body = this.list(['done']);
      this.expectWord('done');
      return { type: 'while', cond, body, until: w === 'until' };
    }
    if (w === 'for') {
      this.i++;
      const nameTok = this.toks[this.i++];
      if (!nameTok || nameTok.kind !== 'word') throw new Error('syntax error: bad for loop variable');
      const words: Word[] = [];
      this.skipSeparators();
      if (this.peekWord() === 'in') {
        this.i++;
        while (this.toks[this.i]?.kind === 'word' && this.peekWord() !== 'do') words.push((this.toks[this.i++] as { word: Word }).word);
      }
      this.expectWord('do');
      const body = this.list(['done']);
      this.expectWord('done');
      return { type: 'for', name: nameTok.raw, words, body };
    }
    if (w === 'if') {
      this.i++;
      const cond = this.list(['then']);
      this.expectWord('then');
      const then = this.list(['else', 'fi']);
      let otherwise: Node | undefined;
      if (this.peekWord() === 'else') {
        this.i++;
        otherwise = this.list(['fi']);
      }
      this.expectWord('fi');
      return { type: 'if', cond, then, else: otherwise };
    }
    if (w !== undefined && reserved.has(w)) throw new Error(`syntax error near unexpected token "${w}"`);
    const words: Word[] = [];
    const assigns: Array<[string, Word]> = [];
    while (this.toks[this.i]?.kind === 'word') {
      const t = this.toks[this.i] as Extract<Token, { kind: 'word' }>;
      const m = words.length === 0 ? t.raw.match(/^([A-Za-z_][A-Za-z0-9_]*)=/) : null;
      if (m) {
        const rest = t.word.map((p) => ({ ...p }));
        rest[0] = { ...rest[0], text: rest[0].text.slice(m[0].length) };
        assigns.push([m[1], rest]);
      } else words.push(t.word);
      this.i++;
    }
    if (words.length === 0 && assigns.length === 0) throw new Error(`syntax error near unexpected token "${this.peekOp() ?? ''}"`);
    return { type: 'cmd', words, assigns };
  }
}

export function parseScript(src: string, onPiece?: () => void): Node {
  // Escaped dollars were marked while tokenizing so that they survive expansion as a literal "$".
  const tokens = tokenize(src, onPiece).map((t) => (t.kind === 'word' ? { ...t, word: t.word.flatMap(splitEscaped) } : t));
  return new Parser(tokens).list();
}

function splitEscaped(p: { text: string; expand: boolean }): Word {
  if (!p.text.includes('\u0000')) return [p];
  const out: Word = [];
  p.text.split('\u0000').forEach((s, i) => {
    if (i > 0) out.push({ text: '$', expand: false });
    if (s) out.push({ text: s, expand: p.expand });
  });
  return out;
}
