// `$(( ... ))`: integer arithmetic with + - * / % ( ), comparisons, ! && ||, unary minus, and variable names
// (their values read as integers, 0 when unset or not a number). Bounded by length and nesting. It runs at every
// step of a counting loop, so its operator tables are built once and a call allocates only its tokens.
export class ArithError extends Error {}

const maxDepth = 64;

type Op = (a: number, b: number) => number;

const div = (f: Op): Op => (a, b) => {
  if (b === 0) throw new ArithError('divide by zero');
  return Math.trunc(f(a, b));
};

/** Binary operators by precedence, loosest first; all associate to the left. */
const levels: ReadonlyArray<ReadonlyMap<string, Op>> = [
  new Map([['||', (a, b) => +(!!a || !!b)]]),
  new Map([['&&', (a, b) => +(!!a && !!b)]]),
  new Map([['==', (a, b) => +(a === b)], ['!=', (a, b) => +(a !== b)]]),
  new Map([['<', (a, b) => +(a < b)], ['>', (a, b) => +(a > b)], ['<=', (a, b) => +(a <= b)], ['>=', (a, b) => +(a >= b)]]),
  new Map([['+', (a, b) => a + b], ['-', (a, b) => a - b]]),
  new Map([['*', (a, b) => a * b], ['/', div((a, b) => a / b)], ['%', div((a, b) => a % b)]]),
];

const token = /\s+|\d+|[A-Za-z_][A-Za-z0-9_]*|<=|>=|==|!=|&&|\|\||[-+*/%()<>!]/y;

function tokens(src: string): string[] {
  const out: string[] = [];
  for (let at = 0; at < src.length; at = token.lastIndex) {
    token.lastIndex = at;
    const m = token.exec(src);
    if (!m) throw new ArithError(`syntax error: "${src.trim()}"`);
    if (!/^\s/.test(m[0])) out.push(m[0]);
  }
  return out;
}

const num = (s: string) => (/^-?\d+$/.test(s.trim()) ? Number(s.trim()) : 0);

class Parser {
  i = 0;
  private depth = 0;
  constructor(readonly t: string[], private readonly lookup: (name: string) => string | undefined) {}

  binary(level: number): number {
    if (level === levels.length) return this.primary();
    const ops = levels[level];
    let v = this.binary(level + 1);
    for (let op = ops.get(this.t[this.i]); op; op = ops.get(this.t[this.i])) {
      this.i++;
      v = op(v, this.binary(level + 1));
    }
    return v;
  }

  private primary(): number {
    if (++this.depth > maxDepth) throw new ArithError('expression nested too deeply');
    try {
      const tok = this.t[this.i++];
      if (tok === undefined) throw new ArithError('syntax error');
      if (tok === '(') {
        const v = this.binary(0);
        if (this.t[this.i++] !== ')') throw new ArithError('missing )');
        return v;
      }
      if (tok === '-') return -this.primary();
      if (tok === '+') return this.primary();
      if (tok === '!') return this.primary() ? 0 : 1;
      if (/^\d+$/.test(tok)) return Number(tok);
      if (/^[A-Za-z_]/.test(tok)) return num(this.lookup(tok) ?? '0');
      throw new ArithError(`syntax error: "${tok}"`);
    } finally {
      this.depth--;
    }
  }
}

export function evalArith(src: string, lookup: (name: string) => string | undefined): number {
  if (src.length > 4096) throw new ArithError('expression too long');
  const t = tokens(src);
  if (!t.length) return 0;
  const p = new Parser(t, lookup);
  const v = p.binary(0);
  if (p.i < t.length) throw new ArithError(`syntax error: "${t.slice(p.i).join(' ')}"`);
  return Number.isSafeInteger(v) ? v : Math.trunc(v) | 0;
}
