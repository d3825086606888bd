// Text utilities over whole inputs: head, tail, wc, grep, sort; and seq, which makes its lines. Each loops over at most `maxInputBytes` and yields
// to the event loop as the shell does (a sort is merged in runs), so no single command holds the server for long.
import type { CmdContext, CommandFn } from '../shell/interp.js';
import { inputs, lines, opts, pace, writeLines } from './args.js';

/**
 * A grep pattern as a RegExp. Patterns that could backtrack catastrophically (a repeated group, many quantifiers,
 * back-references) match literally; lines are matched on their first 1,024 characters only.
 */
function grepRegex(p: string, extended: boolean, fixed: boolean, ignoreCase: boolean): RegExp {
  let src = p.replace(/^(\.\*)+/, '').replace(/(\.\*)+$/, '');
  const risky = /\\?\)\s*[*+?{]|\\\d/.test(src) || (src.match(/[*+?{]/g)?.length ?? 0) > 2 || src.length > 1000;
  if (fixed || risky) src = p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  else if (!extended) src = src.replace(/\\([(){}|+?])|([(){}|+?])/g, (_, esc: string | undefined, plain: string | undefined) => (esc ? esc : `\\${plain}`));
  try {
    return new RegExp(src, ignoreCase ? 'i' : '');
  } catch {
    return new RegExp(p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), ignoreCase ? 'i' : '');
  }
}

/** Where the first `n` lines of `d` end. */
async function headEnd(c: CmdContext, d: Buffer, n: number): Promise<number> {
  let end = 0;
  for (let taken = 0; taken < n && end < d.length; taken++) {
    const paused = pace(c, taken + 1);
    if (paused) await paused;
    const k = d.indexOf(10, end);
    end = k < 0 ? d.length : k + 1;
  }
  return end;
}

/** Where the last `n` lines of `d` start (a final newline ends the last line, it does not start another). */
async function tailStart(c: CmdContext, d: Buffer, n: number): Promise<number> {
  let start = d.length;
  let i = d.length - 1;
  if (i >= 0 && d[i] === 10) i--;
  for (let taken = 0; taken < n; taken++) {
    const paused = pace(c, taken + 1);
    if (paused) await paused;
    const k = i < 0 ? -1 : d.lastIndexOf(10, i);
    start = k + 1;
    if (k < 0) break;
    i = k - 1;
  }
  return start;
}

const headTail = (tail: boolean): CommandFn => async (c) => {
  const { values, rest } = opts(c.argv, 'nc');
  const bytes = values.has('c') ? Math.max(0, Math.trunc(Number(values.get('c')) || 0)) : undefined;
  const n = Math.min(Number(values.get('n') ?? 10) || 0, 1_000_000);
  const r = await inputs(c, rest, tail ? 'tail' : 'head');
  for (let i = 0; i < r.data.length; i++) {
    const d = r.data[i];
    if (rest.length > 1) c.stdout.write(`${i ? '\n' : ''}==> ${r.names[i]} <==\n`);
    if (bytes !== undefined) c.stdout.write(tail ? d.subarray(Math.max(0, d.length - bytes)) : d.subarray(0, bytes));
    else c.stdout.write(tail ? d.subarray(await tailStart(c, d, n)) : d.subarray(0, await headEnd(c, d, n)));
  }
  return r.failed ? 1 : 0;
};

const space = new Set([9, 10, 11, 12, 13, 32]);

/** Lines (newlines) and words (runs of non-blanks) of `d`. */
async function count(c: CmdContext, d: Buffer): Promise<{ lines: number; words: number }> {
  let nl = 0;
  let words = 0;
  let inWord = false;
  for (let i = 0; i < d.length; i++) {
    const paused = pace(c, i + 1, 1 << 16);
    if (paused) await paused;
    const b = d[i];
    if (b === 10) nl++;
    if (space.has(b)) inWord = false;
    else if (!inWord) {
      inWord = true;
      words++;
    }
  }
  return { lines: nl, words };
}

const wc: CommandFn = async (c) => {
  const { flags, rest } = opts(c.argv);
  const r = await inputs(c, rest, 'wc');
  const sel = flags.size ? flags : new Set(['l', 'w', 'c']);
  for (let i = 0; i < r.data.length; i++) {
    const d = r.data[i];
    const n = sel.has('l') || sel.has('w') ? await count(c, d) : { lines: 0, words: 0 };
    const cols: number[] = [];
    if (sel.has('l')) cols.push(n.lines);
    if (sel.has('w')) cols.push(n.words);
    if (sel.has('c')) cols.push(d.length);
    const name = rest.length ? ` ${r.names[i]}` : '';
    c.stdout.write(`${cols.map((x) => (cols.length > 1 ? String(x).padStart(7) : String(x))).join(' ')}${name}\n`);
  }
  return r.failed ? 1 : 0;
};

const grep: CommandFn = async (c) => {
  const { flags, values, rest } = opts(c.argv, 'e');
  const pattern = values.get('e') ?? rest.shift();
  if (pattern === undefined) {
    c.stderr.write('Usage: grep [-ivcnqEF] PATTERN [FILE]...\n');
    return 2;
  }
  const re = grepRegex(pattern, flags.has('E'), flags.has('F'), flags.has('i'));
  const r = await inputs(c, rest, 'grep');
  let matched = 0;
  for (let i = 0; i < r.data.length; i++) {
    const prefix = rest.length > 1 ? `${r.names[i]}:` : '';
    let own = 0;
    const l = await lines(c, r.data[i]);
    for (let j = 0; j < l.length; j++) {
      const paused = pace(c, j + 1);
      if (paused) await paused;
      const line = l[j];
      if (re.test(line.length > 1024 ? line.slice(0, 1024) : line) === flags.has('v')) continue;
      own++;
      if (flags.has('q') || flags.has('c')) continue;
      c.stdout.write(`${prefix}${flags.has('n') ? `${j + 1}:` : ''}${line}\n`);
    }
    if (flags.has('c') && !flags.has('q')) c.stdout.write(`${prefix}${own}\n`);
    matched += own;
  }
  if (r.failed) return 2;
  return matched ? 0 : 1;
};

/** A stable sort in runs merged pairwise, yielding as the shell does between runs and every few thousand items. */
async function pacedSort<T>(c: CmdContext, items: T[], cmp: (a: T, b: T) => number): Promise<T[]> {
  const run = 4096;
  let src = items.slice();
  for (let lo = 0; lo < src.length; lo += run) {
    const paused = pace(c, 0);
    if (paused) await paused;
    const part = src.slice(lo, lo + run).sort(cmp);
    for (let k = 0; k < part.length; k++) src[lo + k] = part[k];
  }
  let dst = new Array<T>(src.length);
  for (let width = run; width < src.length; width *= 2) {
    let out = 0;
    for (let lo = 0; lo < src.length; lo += 2 * width) {
      const mid = Math.min(lo + width, src.length);
      const hi = Math.min(lo + 2 * width, src.length);
      let a = lo;
      let b = mid;
      while (a < mid || b < hi) {
        const paused = pace(c, out + 1, 4096);
        if (paused) await paused;
        dst[out++] = b >= hi || (a < mid && cmp(src[a], src[b]) <= 0) ? src[a++] : src[b++];
      }
    }
    [src, dst] = [dst, src];
  }
  return src;
}

const sort: CommandFn = async (c) => {
  const { flags, rest } = opts(c.argv);
  const r = await inputs(c, rest, 'sort');
  const all: string[] = [];
  for (const d of r.data) await lines(c, d, all);
  const numeric = (a: string, b: string) => (parseFloat(a) || 0) - (parseFloat(b) || 0);
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  let l = await pacedSort(c, all, flags.has('n') ? numeric : text);
  if (flags.has('r')) l.reverse();
  if (flags.has('u')) l = l.filter((x, i) => i === 0 || x !== l[i - 1]);
  await writeLines(c, l);
  return r.failed ? 2 : 0;
};

/** `seq [FIRST [INCREMENT]] LAST` over integers (`for i in $(seq 1 3)`), written in paced batches. */
const seq: CommandFn = async (c) => {
  const args = c.argv.slice(1);
  const bad = args.find((a) => !/^-?\d{1,15}$/.test(a));
  if (!args.length || args.length > 3 || bad !== undefined) {
    c.stderr.write(bad !== undefined ? `seq: invalid number '${bad.slice(0, 100)}'\n` : 'Usage: seq [-w] [-s SEP] [FIRST [INC]] LAST\n');
    return 1;
  }
  const n = args.map(Number);
  const [first, inc, last] = n.length === 1 ? [1, 1, n[0]] : n.length === 2 ? [n[0], 1, n[1]] : n;
  if (inc === 0) return 0;
  let batch: string[] = [];
  for (let v = first; inc > 0 ? v <= last : v >= last; v += inc) {
    batch.push(String(v));
    if (batch.length < 4096) continue;
    const paused = pace(c, 0);
    if (paused) await paused;
    c.stdout.write(`${batch.join('\n')}\n`);
    batch = [];
  }
  if (batch.length) c.stdout.write(`${batch.join('\n')}\n`);
  return 0;
};

export function textCommands(): Map<string, CommandFn> {
  return new Map<string, CommandFn>([['head', headTail(false)], ['tail', headTail(true)], ['wc', wc], ['grep', grep], ['sort', sort], ['seq', seq]]);
}
