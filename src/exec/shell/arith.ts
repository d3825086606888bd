// `$(( ... ))`: integer arithmetic with + - * / % ( ), comparisons, ! && ||, unary minus, and variable names
// (their values read as integers, 0 when unset or not a number). Bounded by length and nesting.
export class ArithError extends Error {}

const maxDepth = 64;

export function evalArith(src: string, lookup: (name: string) => string | undefined): number {
  if (src.length > 4096) throw new ArithError('expression too long');
  const toks = src.match(/\s+|\d+|[A-Za-z_][A-Za-z0-9_]*|<=|>=|==|!=|&&|\|\||[-+*/%()<>!]/g) ?? [];
  if (toks.join('') !== src) throw new ArithError(`syntax error: "${src.trim()}"`);
  const t = toks.filter((x) => !/^\s+$/.test(x));
  let i = 0;
  let depth = 0;
  const peek = () => t[i];
  const num = (s: string) => (/^-?\d+$/.test(s.trim()) ? Number(s.trim()) : 0);
  const bin = (next: () => number, ops: Record<string, (a: number, b: number) => number>) => (): number => {
    let v = next();
    while (peek() !== undefined && Object.prototype.hasOwnProperty.call(ops, peek())) {
      const op = t[i++];
      v = ops[op](v, next());
    }
    return v;
  };
  const primary = (): number => {
    if (++depth > maxDepth) throw new ArithError('expression nested too deeply');
    try {
      const tok = t[i++];
      if (tok === undefined) throw new ArithError('syntax error');
      if (tok === '(') {
        const v = or();
        if (t[i++] !== ')') throw new ArithError('missing )');
        return v;
      }
      if (tok === '-') return -primary();
      if (tok === '+') return primary();
      if (tok === '!') return primary() ? 0 : 1;
      if (/^\d+$/.test(tok)) return Number(tok);
      if (/^[A-Za-z_]/.test(tok)) return num(lookup(tok) ?? '0');
      throw new ArithError(`syntax error: "${tok}"`);
    } finally {
      depth--;
    }
  };
  const div = (f: (a: number, b: number) => number) => (a: number, b: number) => {
    if (b === 0) throw new ArithError('divide by zero');
    return Math.trunc(f(a, b));
  };
  const mul = bin(primary, { '*': (a, b) => a * b, '/': div((a, b) => a / b), '%': div((a, b) => a % b) });
  const add = bin(mul, { '+': (a, b) => a + b, '-': (a, b) => a - b });
  const cmp = bin(add, { '<': (a, b) => +(a < b), '>': (a, b) => +(a > b), '<=': (a, b) => +(a <= b), '>=': (a, b) => +(a >= b) });
  const eq = bin(cmp, { '==': (a, b) => +(a === b), '!=': (a, b) => +(a !== b) });
  const and = bin(eq, { '&&': (a, b) => +(!!a && !!b) });
  const or = bin(and, { '||': (a, b) => +(!!a || !!b) });
  if (!t.length) return 0;
  const v = or();
  if (i < t.length) throw new ArithError(`syntax error: "${t.slice(i).join(' ')}"`);
  return Number.isSafeInteger(v) ? v : Math.trunc(v) | 0;
}
