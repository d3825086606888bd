// File utilities: cat, ls, tee, mkdir, touch, rm, which, clear (the text utilities are in text.ts).
import type { CmdContext, CommandFn } from '../shell/interp.js';
import { FsError, resolvePath, type FsNode } from '../vfs.js';
import { inputs, opts } from './args.js';

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
  if (!out.length) return code;
  // On a terminal, short listings go across (as ls does there); one name a line otherwise.
  const across = c.shell.host.tty && !long && !flags.has('1') && dirs.length <= 1 && !out.some((l) => l.endsWith(':'));
  c.stdout.write(across ? `${out.join('  ')}\n` : `${out.join('\n')}\n`);
  return code;
};

export function fileCommands(): Map<string, CommandFn> {
  const m = new Map<string, CommandFn>();
  m.set('cat', async (c) => {
    const { rest } = opts(c.argv);
    const r = await inputs(c, rest, 'cat', Infinity);
    for (const d of r.data) c.stdout.write(d);
    return r.failed ? 1 : 0;
  });
  m.set('ls', ls);
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
