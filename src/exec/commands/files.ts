// File and text utilities: cat, ls, head, tail, wc, grep, sort, tee, mkdir, touch, rm, which.
import type { CmdContext, CommandFn } from '../shell/interp.js';
import { FsError, resolvePath, type FsNode } from '../vfs.js';

/** Options (`-la`, `-n 5`) and operands; `withValue` options take the next argument. */
function opts(argv: string[], withValue = ''): { flags: Set<string>; values: Map<string, string>; rest: string[] } {
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

/** The contents of each operand (stdin for none or `-`), reporting unreadable ones. */
async function inputs(c: CmdContext, files: string[], name: string): Promise<{ data: Buffer[]; failed: boolean }> {
  if (!files.length) return { data: [await c.stdin.readAll()], failed: false };
  const data: Buffer[] = [];
  let failed = false;
  for (const f of files) {
    if (f === '-') {
      data.push(await c.stdin.readAll());
      continue;
    }
    try {
      data.push(c.shell.host.fs.readFile(resolvePath(c.shell.cwd, f)));
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      c.stderr.write(e.reason === 'Is a directory' ? `${name}: read error: Is a directory\n` : `${name}: can't open '${f}': ${e.reason}\n`);
      failed = true;
    }
  }
  return { data, failed };
}

function lines(b: Buffer): string[] {
  const s = b.toString('utf8');
  const l = s.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}

function modeString(n: FsNode): string {
  const bits = 'rwxrwxrwx';
  let s = n.type === 'dir' ? 'd' : '-';
  for (let i = 0; i < 9; i++) s += n.mode & (1 << (8 - i)) ? bits[i] : '-';
  if (n.mode & 0o1000) s = `${s.slice(0, 9)}${n.mode & 1 ? 't' : 'T'}`;
  return s;
}

function lsTime(ms: number, nowMs: number): string {
  const d = new Date(ms);
  const mon = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()];
  const day = String(d.getUTCDate()).padStart(2, ' ');
  const recent = Math.abs(nowMs - ms) < 182 * 86400_000;
  return `${mon} ${day} ${recent ? `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}` : ` ${d.getUTCFullYear()}`}`;
}

const ls: CommandFn = async (c) => {
  const { flags, rest } = opts(c.argv);
  const long = flags.has('l');
  const all = flags.has('a');
  const targets = rest.length ? rest : ['.'];
  const now = c.shell.host.nowMs();
  const fmt = (name: string, n: FsNode) => {
    if (!long) return name;
    const size = n.type === 'file' ? n.data.length : 4096;
    return `${modeString(n)} ${String(n.type === 'dir' ? 2 : 1).padStart(4)} root     root     ${String(size).padStart(9)} ${lsTime(n.mtimeMs, now)} ${name}`;
  };
  let code = 0;
  const out: string[] = [];
  const dirs: [string, FsNode][] = [];
  for (const t of targets) {
    const n = c.shell.host.fs.lookup(resolvePath(c.shell.cwd, t));
    if (!n) {
      c.stderr.write(`ls: ${t}: No such file or directory\n`);
      code = 1;
    } else if (n.type === 'file' || flags.has('d')) out.push(fmt(t, n));
    else dirs.push([t, n]);
  }
  const show = dirs.length > 1 || out.length > 0;
  for (const [t, n] of dirs) {
    if (n.type !== 'dir') continue;
    if (out.length) out.push('');
    if (show) out.push(`${t}:`);
    if (long) out.push(`total ${n.children.size * 4}`);
    const names = [...n.children.keys()].filter((k) => all || !k.startsWith('.')).sort();
    if (all) out.push(fmt('.', n), fmt('..', n));
    for (const k of names) out.push(fmt(k, n.children.get(k)!));
  }
  if (out.length) c.stdout.write(`${out.join('\n')}\n`);
  return code;
};

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

export function fileCommands(): Map<string, CommandFn> {
  const m = new Map<string, CommandFn>();
  m.set('cat', async (c) => {
    const { rest } = opts(c.argv);
    const r = await inputs(c, rest, 'cat');
    for (const d of r.data) c.stdout.write(d);
    return r.failed ? 1 : 0;
  });
  m.set('ls', ls);
  const headTail = (tail: boolean): CommandFn => async (c) => {
    const { values, rest } = opts(c.argv, 'nc');
    const n = Math.min(Number(values.get('n') ?? 10) || 0, 1_000_000);
    const r = await inputs(c, rest, tail ? 'tail' : 'head');
    r.data.forEach((d, i) => {
      if (rest.length > 1) c.stdout.write(`${i ? '\n' : ''}==> ${rest[i]} <==\n`);
      const l = d.toString('utf8').match(/[^\n]*\n|[^\n]+$/g) ?? [];
      const pick = tail ? l.slice(Math.max(0, l.length - n)) : l.slice(0, n);
      c.stdout.write(pick.join(''));
    });
    return r.failed ? 1 : 0;
  };
  m.set('head', headTail(false)).set('tail', headTail(true));
  m.set('wc', async (c) => {
    const { flags, rest } = opts(c.argv);
    const r = await inputs(c, rest, 'wc');
    const sel = flags.size ? flags : new Set(['l', 'w', 'c']);
    r.data.forEach((d, i) => {
      const cols: number[] = [];
      if (sel.has('l')) cols.push(d.toString('utf8').split('\n').length - 1);
      if (sel.has('w')) cols.push(d.toString('utf8').split(/\s+/).filter(Boolean).length);
      if (sel.has('c')) cols.push(d.length);
      const name = rest[i] ? ` ${rest[i]}` : '';
      c.stdout.write(`${cols.map((x) => (cols.length > 1 ? String(x).padStart(7) : String(x))).join(' ')}${name}\n`);
    });
    return r.failed ? 1 : 0;
  });
  m.set('grep', async (c) => {
    const { flags, values, rest } = opts(c.argv, 'e');
    const pattern = values.get('e') ?? rest.shift();
    if (pattern === undefined) {
      c.stderr.write('Usage: grep [-ivcnqEF] PATTERN [FILE]...\n');
      return 2;
    }
    const re = grepRegex(pattern, flags.has('E'), flags.has('F'), flags.has('i'));
    const r = await inputs(c, rest, 'grep');
    let count = 0;
    r.data.forEach((d, i) => {
      let own = 0;
      lines(d).forEach((line, j) => {
        if (re.test(line.length > 1024 ? line.slice(0, 1024) : line) === flags.has('v')) return;
        own++;
        if (flags.has('q') || flags.has('c')) return;
        c.stdout.write(`${rest.length > 1 ? `${rest[i]}:` : ''}${flags.has('n') ? `${j + 1}:` : ''}${line}\n`);
      });
      if (flags.has('c') && !flags.has('q')) c.stdout.write(`${rest.length > 1 ? `${rest[i]}:` : ''}${own}\n`);
      count += own;
    });
    if (r.failed) return 2;
    return count ? 0 : 1;
  });
  m.set('sort', async (c) => {
    const { flags, rest } = opts(c.argv);
    const r = await inputs(c, rest, 'sort');
    let l = r.data.flatMap(lines);
    l = flags.has('n') ? l.sort((a, b) => (parseFloat(a) || 0) - (parseFloat(b) || 0)) : l.sort();
    if (flags.has('r')) l.reverse();
    if (flags.has('u')) l = l.filter((x, i) => i === 0 || x !== l[i - 1]);
    if (l.length) c.stdout.write(`${l.join('\n')}\n`);
    return r.failed ? 2 : 0;
  });
  m.set('tee', async (c) => {
    const { flags, rest } = opts(c.argv);
    const data = await c.stdin.readAll();
    c.stdout.write(data);
    let code = 0;
    for (const f of rest) {
      try {
        c.shell.host.fs.writeFile(resolvePath(c.shell.cwd, f), data, flags.has('a'), c.shell.host.nowMs());
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        c.stderr.write(`tee: ${f}: ${e.reason}\n`);
        code = 1;
      }
    }
    return code;
  });
  const each = (name: string, fn: (c: CmdContext, path: string, flags: Set<string>) => void): CommandFn => async (c) => {
    const { flags, rest } = opts(c.argv);
    if (!rest.length) {
      c.stderr.write(`${name}: missing operand\n`);
      return 1;
    }
    let code = 0;
    for (const f of rest) {
      try {
        fn(c, resolvePath(c.shell.cwd, f), flags);
      } catch (e) {
        if (!(e instanceof FsError)) throw e;
        c.stderr.write(`${name}: ${name === 'mkdir' ? "can't create directory" : name === 'rm' ? "can't remove" : ''} '${f}': ${e.reason}\n`.replace(/:  '/, ": '"));
        code = 1;
      }
    }
    return code;
  };
  m.set('mkdir', each('mkdir', (c, p, f) => {
    if (f.has('p')) {
      const segs = p.split('/').filter(Boolean);
      for (let i = 1; i <= segs.length; i++) {
        const sub = `/${segs.slice(0, i).join('/')}`;
        const n = c.shell.host.fs.lookup(sub);
        if (n?.type === 'dir') continue;
        c.shell.host.fs.mkdir(sub, c.shell.host.nowMs());
      }
    } else c.shell.host.fs.mkdir(p, c.shell.host.nowMs());
  }));
  m.set('touch', each('touch', (c, p) => c.shell.host.fs.writeFile(p, Buffer.alloc(0), true, c.shell.host.nowMs())));
  m.set('rm', each('rm', (c, p, f) => {
    try {
      c.shell.host.fs.remove(p, f.has('r') || f.has('R'));
    } catch (e) {
      if (!(e instanceof FsError && f.has('f') && e.reason === 'No such file or directory')) throw e;
    }
  }));
  m.set('which', async (c) => {
    let code = 0;
    for (const n of c.argv.slice(1)) {
      if (c.shell.host.commands.has(n)) c.stdout.write(`/bin/${n}\n`);
      else code = 1;
    }
    return code;
  });
  m.set('clear', async (c) => (c.stdout.write('\x1b[H\x1b[J'), 0));
  return m;
}
