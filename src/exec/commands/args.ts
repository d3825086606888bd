// What the file and text utilities share: option parsing, reading their operands (bounded, counted against the
// session's memory budget), and pacing loops over large input so the shell still yields every few ms.
import type { CmdContext } from '../shell/interp.js';
import { FsError, resolvePath } from '../vfs.js';
import { maxOutputBytes } from '../shell/io.js';

/** The most one command reads from its operands (and stdin) together: what a pipe or a file holds. */
export const maxInputBytes = maxOutputBytes;

/** Options (`-la`, `-n 5`) and operands; `withValue` options take the next argument. */
export function opts(argv: string[], withValue = ''): { flags: Set<string>; values: Map<string, string>; rest: string[] } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const rest: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') {
      rest.push(...argv.slice(i + 1));
      break;
    }
    if (/^-\d+$/.test(a) && withValue.includes('n')) {
      values.set('n', a.slice(1));
      continue;
    }
    if (a.length > 1 && a[0] === '-' && !a.startsWith('--')) {
      for (let j = 1; j < a.length; j++) {
        if (withValue.includes(a[j])) {
          values.set(a[j], a.slice(j + 1) || argv[++i] || '');
          break;
        }
        flags.add(a[j]);
      }
    } else rest.push(a);
  }
  return { flags, values, rest };
}

/** Every `every`th iteration of a loop over input, one step of the shell's budget (await it when it is a Promise). */
export function pace(c: CmdContext, i: number, every = 1024): Promise<void> | undefined {
  return i % every === 0 ? c.shell.step() : undefined;
}

/**
 * The contents of each operand (stdin for none or `-`), reporting unreadable ones. What is read counts against the
 * memory budget; past `max` bytes in all, the rest is refused as too large (`cat`, which only passes its input on,
 * reads without that bound: its output is bounded and counted).
 */
export async function inputs(c: CmdContext, files: string[], name: string, max = maxInputBytes): Promise<{ data: Buffer[]; names: string[]; failed: boolean }> {
  const data: Buffer[] = [];
  const names: string[] = [];
  let total = 0;
  const take = (b: Buffer, label: string): boolean => {
    if (total + b.length > max) {
      c.stderr.write(`${name}: ${label}: input too large\n`);
      return false;
    }
    total += b.length;
    c.shell.budget.charge(b.length);
    data.push(b);
    names.push(label);
    return true;
  };
  if (!files.length) return { data, names, failed: !take(await c.stdin.readAll(), 'standard input') };
  let failed = false;
  for (let i = 0; i < files.length; i++) {
    const paused = pace(c, i, 64);
    if (paused) await paused;
    const f = files[i];
    let b: Buffer;
    try {
      b = f === '-' ? await c.stdin.readAll() : c.shell.host.fs.readFile(resolvePath(c.shell.cwd, f));
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      c.stderr.write(e.reason === 'Is a directory' ? `${name}: read error: Is a directory\n` : `${name}: can't open '${f}': ${e.reason}\n`);
      failed = true;
      continue;
    }
    if (!take(b, f)) return { data, names, failed: true };
  }
  return { data, names, failed };
}

/** Appends a buffer's lines (without their newlines) to `out`, pacing the loop. */
export async function lines(c: CmdContext, b: Buffer, out: string[] = []): Promise<string[]> {
  const s = b.toString('utf8');
  for (let at = 0, n = 1; at < s.length; n++) {
    const paused = pace(c, n, 4096);
    if (paused) await paused;
    const k = s.indexOf('\n', at);
    const end = k < 0 ? s.length : k;
    out.push(s.slice(at, end));
    at = end + 1;
  }
  return out;
}

/** Writes lines, each ending in a newline, a few thousand at a time. */
export async function writeLines(c: CmdContext, l: string[]): Promise<void> {
  for (let i = 0; i < l.length; i += 4096) {
    const paused = pace(c, 0);
    if (paused) await paused;
    c.stdout.write(`${l.slice(i, i + 4096).join('\n')}\n`);
  }
}
