// `test` / `[`: unary file and string tests, binary string and integer comparisons, `!`, `-a`, `-o`.
import type { Out } from '../shell/io.js';
import type { FsNode } from '../vfs.js';

export interface TestEnv {
  lookup(path: string): FsNode | undefined;
  tty: boolean;
}

const intRe = /^\s*-?\d{1,18}\s*$/;

export function testExpr(args: string[], info: TestEnv, stderr: Out, name: string): number {
  try {
    return evalOr(args, info, name) ? 0 : 1;
  } catch (e) {
    if (e instanceof TestError) {
      stderr.write(`${name}: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

class TestError extends Error {}

function evalOr(args: string[], info: TestEnv, name: string): boolean {
  const i = args.indexOf('-o');
  if (i > 0) return evalOr(args.slice(0, i), info, name) || evalOr(args.slice(i + 1), info, name);
  const j = args.indexOf('-a');
  if (j > 0) return evalOr(args.slice(0, j), info, name) && evalOr(args.slice(j + 1), info, name);
  return prim(args, info);
}

function prim(a: string[], info: TestEnv): boolean {
  if (a.length === 0) return false;
  if (a[0] === '!' && a.length > 1) return !prim(a.slice(1), info);
  if (a.length === 1) return a[0] !== '';
  if (a.length === 2) {
    const [op, v] = a;
    const node = () => info.lookup(v);
    switch (op) {
      case '-z': return v === '';
      case '-n': return v !== '';
      case '-e': case '-a': return !!node();
      case '-f': return node()?.type === 'file';
      case '-d': return node()?.type === 'dir';
      case '-s': { const n = node(); return n?.type === 'file' && n.data.length > 0; }
      case '-r': return !!node();
      case '-w': { const n = node(); return !!n && n.type === 'dir' ? !!n.quota : false; }
      case '-x': { const n = node(); return !!n && (n.mode & 0o111) !== 0; }
      case '-L': case '-h': return false;
      case '-t': return info.tty && (v === '0' || v === '1' || v === '2');
      default: throw new TestError(`${op}: unary operator expected`);
    }
  }
  if (a.length === 3) {
    const [l, op, r] = a;
    switch (op) {
      case '=': case '==': return l === r;
      case '!=': return l !== r;
      case '<': return l < r;
      case '>': return l > r;
    }
    const ints = () => {
      if (!intRe.test(l)) throw new TestError(`invalid number '${l}'`);
      if (!intRe.test(r)) throw new TestError(`invalid number '${r}'`);
      return [Number(l), Number(r)];
    };
    switch (op) {
      case '-eq': { const [x, y] = ints(); return x === y; }
      case '-ne': { const [x, y] = ints(); return x !== y; }
      case '-lt': { const [x, y] = ints(); return x < y; }
      case '-le': { const [x, y] = ints(); return x <= y; }
      case '-gt': { const [x, y] = ints(); return x > y; }
      case '-ge': { const [x, y] = ints(); return x >= y; }
    }
    throw new TestError(`${op}: binary operator expected`);
  }
  throw new TestError('too many arguments');
}
