// Where an RE2 pattern matches, with Go's leftmost-first semantics, for Kubernetes' `find` and `findAll`.
//
// @bufbuild/re2 (the RE2 port CRD patterns and CEL's `matches` use) answers only "is there a match". The match itself
// is taken here by simulating the port's compiled program as a Thompson NFA that keeps its threads in priority
// order (the "Pike VM"): every position is visited once and every instruction at most once a position, so the work
// is linear in the input times the program's size, whatever the pattern (no backtracking, no JS RegExp, and the
// pattern's own syntax and flags such as `(?i)` or `(?s:…)` are RE2's, as the port parsed them).
import type { RE2JS } from '@bufbuild/re2';

type Prog = ReturnType<RE2JS['re2']>['prog'];
type Inst = ReturnType<Prog['getInst']>;

// Instruction codes of the port's compiled program (its Inst class, @bufbuild/re2 0.6.x).
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const EMPTY_WIDTH = 4;
const MATCH = 6;
const NOP = 7;
const RUNE_FIRST = 8;
const RUNE_LAST = 11;

// Zero-width assertions a position satisfies (the port's EMPTY_* bits).
const BEGIN_LINE = 0x01;
const END_LINE = 0x02;
const BEGIN_TEXT = 0x04;
const END_TEXT = 0x08;
const WORD_BOUNDARY = 0x10;
const NO_WORD_BOUNDARY = 0x20;

/** `\b` and `\B` are ASCII-only in RE2: word characters are [0-9A-Za-z_]. */
const isWord = (r: number) => (r >= 0x30 && r <= 0x39) || (r >= 0x41 && r <= 0x5a) || (r >= 0x61 && r <= 0x7a) || r === 0x5f;

/** The assertions that hold between rune `before` and rune `after` (-1: the text's start or end). */
function context(before: number, after: number): number {
  let f = 0;
  if (before < 0) f |= BEGIN_TEXT | BEGIN_LINE;
  if (before === 0x0a) f |= BEGIN_LINE;
  if (after < 0) f |= END_TEXT | END_LINE;
  if (after === 0x0a) f |= END_LINE;
  return f | (isWord(before) !== isWord(after) ? WORD_BOUNDARY : NO_WORD_BOUNDARY);
}

/** The code point at `i`, -1 past the end. */
const runeAt = (s: string, i: number): number => (i < s.length ? s.codePointAt(i)! : -1);
/** How many UTF-16 units a code point takes (none past the end). */
const width = (r: number): number => (r < 0 ? 0 : r > 0xffff ? 2 : 1);

function runeBefore(s: string, i: number): number {
  if (i <= 0) return -1;
  const lo = s.charCodeAt(i - 1);
  if (lo >= 0xdc00 && lo <= 0xdfff && i >= 2) {
    const hi = s.charCodeAt(i - 2);
    if (hi >= 0xd800 && hi <= 0xdbff) return s.codePointAt(i - 2)!;
  }
  return lo;
}

/** Runnable threads (rune and match instructions) in priority order, each with where its match began. */
class Threads {
  readonly pcs: Int32Array;
  readonly starts: Int32Array;
  n = 0;
  private readonly seen: Int32Array;
  private stamp = 1;
  private readonly stack: number[] = [];

  constructor(private readonly insts: Inst[]) {
    this.pcs = new Int32Array(insts.length);
    this.starts = new Int32Array(insts.length);
    this.seen = new Int32Array(insts.length);
  }

  clear(): void {
    this.n = 0;
    this.stamp++;
  }

  /** Follows the empty transitions from `pc` depth-first, preferred branch first, as RE2 orders threads. */
  add(pc: number, start: number, ctx: number): void {
    const first = this.insts[pc]!.op;
    if (first >= MATCH && first !== NOP) {
      // A rune or match instruction: the thread itself, no empty transitions to follow.
      if (this.seen[pc] !== this.stamp) {
        this.seen[pc] = this.stamp;
        this.pcs[this.n] = pc;
        this.starts[this.n++] = start;
      }
      return;
    }
    const stack = this.stack;
    stack.push(pc);
    while (stack.length) {
      const at = stack.pop()!;
      if (this.seen[at] === this.stamp) continue;
      this.seen[at] = this.stamp;
      const inst = this.insts[at]!;
      switch (inst.op) {
        case ALT:
        case ALT_MATCH:
          stack.push(inst.arg, inst.out);
          break;
        case NOP:
        case CAPTURE:
          stack.push(inst.out);
          break;
        case EMPTY_WIDTH:
          if ((inst.arg & ~ctx) === 0) stack.push(inst.out);
          break;
        case MATCH:
          this.pcs[this.n] = at;
          this.starts[this.n++] = start;
          break;
        default:
          if (inst.op >= RUNE_FIRST && inst.op <= RUNE_LAST) {
            this.pcs[this.n] = at;
            this.starts[this.n++] = start;
          }
      }
    }
  }
}

/** A matcher for one pattern: its program and two thread lists, reused across the searches of one call. */
export class Finder {
  private readonly prog: Prog;
  private run: Threads;
  private next: Threads;
  /** A literal every match starts with: where no thread runs, the search skips to its next occurrence. */
  private readonly prefix: string;

  constructor(re: RE2JS) {
    const re2 = re.re2();
    this.prog = re2.prog;
    this.run = new Threads(this.prog.inst);
    this.next = new Threads(this.prog.inst);
    this.prefix = re2.prefix;
  }

  /** The leftmost-first match in `s` starting at or after `from`, as [start, end) UTF-16 offsets. */
  find(s: string, from: number): [number, number] | undefined {
    const insts = this.prog.inst;
    let run = this.run;
    let next = this.next;
    run.clear();
    let matched: [number, number] | undefined;
    let pos = from;
    let r = runeAt(s, pos);
    let ctx = context(runeBefore(s, pos), r);
    for (;;) {
      if (run.n === 0) {
        if (matched) break;
        if (this.prefix) {
          const at = s.indexOf(this.prefix, pos);
          if (at < 0) break;
          if (at > pos) {
            pos = at;
            r = runeAt(s, pos);
            ctx = context(runeBefore(s, pos), r);
          }
        }
      }
      const w = width(r);
      if (!matched) run.add(this.prog.start, pos, ctx);
      const following = w ? runeAt(s, pos + w) : -1;
      const after = w ? context(r, following) : 0;
      next.clear();
      for (let i = 0; i < run.n; i++) {
        const inst = insts[run.pcs[i]!]!;
        if (inst.op === MATCH) {
          // A match by this thread outranks every thread after it: they are dropped.
          matched = [run.starts[i]!, pos];
          break;
        }
        if (w && inst.matchRune(r)) next.add(inst.out, run.starts[i]!, after);
      }
      const t = run;
      run = next;
      next = t;
      if (!w) break;
      pos += w;
      r = following;
      ctx = after;
    }
    this.run = run;
    this.next = next;
    return matched;
  }
}

/**
 * Go's FindAllString: successive non-overlapping matches, at most `limit` (all when negative); an empty match
 * right where the previous match ended is skipped.
 */
export function findAllIn(re: RE2JS, s: string, limit: number): string[] {
  const finder = new Finder(re);
  const out: string[] = [];
  let pos = 0;
  let prevEnd = -1;
  while ((limit < 0 || out.length < limit) && pos <= s.length) {
    const m = finder.find(s, pos);
    if (!m) break;
    let accept = true;
    if (m[1] === pos) {
      if (m[0] === prevEnd) accept = false;
      pos += Math.max(1, width(runeAt(s, pos)));
    } else pos = m[1];
    prevEnd = m[1];
    if (accept) out.push(s.slice(m[0], m[1]));
  }
  return out;
}
