// Builtins and basic utilities: echo, printf, env, printenv, cd, pwd, exit, export, unset, sleep, test, id, date,
// uname, hostname, ps, sh.
import { runProgram, type CmdContext, type CommandFn } from '../shell/interp.js';
import { ExitSignal } from '../shell/signals.js';
import { defaultProcess, type ContainerInfo } from '../container-info.js';
import { resolvePath } from '../vfs.js';
import { isName } from '../shell/lexer.js';
import { testExpr } from './test-expr.js';
import { maxOutputBytes } from '../shell/io.js';

function echoEscapes(s: string): { text: string; stop: boolean } {
  const cut = s.indexOf('\\c');
  const text = (cut >= 0 ? s.slice(0, cut) : s).replace(/\\(0[0-7]{0,3}|[abefnrtv\\])/g, (_, e: string) => {
    if (e[0] === '0') return String.fromCharCode(parseInt(e.slice(1) || '0', 8));
    return ({ a: '\x07', b: '\b', e: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' } as Record<string, string>)[e];
  });
  return { text, stop: cut >= 0 };
}

const echo: CommandFn = async ({ argv, stdout }) => {
  let i = 1;
  let newline = true;
  let escapes = false;
  for (; i < argv.length && /^-[neE]+$/.test(argv[i]); i++) {
    if (argv[i].includes('n')) newline = false;
    if (argv[i].includes('e')) escapes = true;
  }
  let text = argv.slice(i).join(' ');
  if (escapes) {
    const r = echoEscapes(text);
    text = r.text;
    if (r.stop) newline = false;
  }
  stdout.write(newline ? `${text}\n` : text);
  return 0;
};

const printf: CommandFn = async ({ argv, stdout, stderr }) => {
  if (argv.length < 2) {
    stderr.write('printf: usage: printf FORMAT [ARGUMENT...]\n');
    return 1;
  }
  const fmt = argv[1];
  const args = argv.slice(2);
  let out = '';
  let k = 0;
  for (let round = 0; round < 1000; round++) {
    out += fmt.replace(/%([-0 +#]*\d*(?:\.\d+)?)([sdixXocb%])|\\(0[0-7]{0,3}|[abefnrtv\\])/g, (_m, flags: string | undefined, conv: string | undefined, esc: string | undefined) => {
      if (esc !== undefined) return echoEscapes(`\\${esc}`).text;
      if (conv === '%') return '%';
      const a = args[k++] ?? '';
      const width = Number(/\d+/.exec(flags ?? '')?.[0] ?? 0);
      let s: string;
      if (conv === 'd' || conv === 'i') s = String(Math.trunc(Number(a) || 0));
      else if (conv === 'x' || conv === 'X') s = (Math.trunc(Number(a) || 0)).toString(16)[conv === 'X' ? 'toUpperCase' : 'toLowerCase']();
      else if (conv === 'o') s = (Math.trunc(Number(a) || 0)).toString(8);
      else if (conv === 'c') s = a.slice(0, 1);
      else s = conv === 'b' ? echoEscapes(a).text : a;
      if (s.length < width && width < 10_000) s = flags?.includes('-') ? s.padEnd(width) : s.padStart(width, flags?.startsWith('0') && conv !== 's' ? '0' : ' ');
      return s;
    });
    if (k === 0 || k >= args.length || out.length > maxOutputBytes) break;
  }
  stdout.write(out);
  return 0;
};

/** `NAME=value` lines, up to the output limit (what is past it would be dropped anyway). */
function envLines(env: Iterable<[string, string]>): string {
  const out: string[] = [];
  let size = 0;
  for (const [k, v] of env) {
    if (size > maxOutputBytes) break;
    out.push(`${k}=${v}\n`);
    size += k.length + v.length + 2;
  }
  return out.join('');
}

/** The processes of the container an ephemeral container targets (user, command), or undefined. */
function targetProcesses(info: ContainerInfo): Array<[string, string]> | undefined {
  const name = (info.container as { targetContainerName?: string }).targetContainerName;
  const target = name ? info.pod.spec?.containers?.find((c) => c.name === name) : undefined;
  if (!target) return undefined;
  const main = defaultProcess(target);
  return main.startsWith('nginx: master') ? [['root', main], ['101', 'nginx: worker process'], ['101', 'nginx: worker process']] : [['root', main]];
}

export function coreCommands(info: ContainerInfo): Map<string, CommandFn> {
  const m = new Map<string, CommandFn>();
  m.set('true', async () => 0).set(':', async () => 0).set('false', async () => 1);
  m.set('echo', echo).set('printf', printf);
  m.set('env', async (c) => {
    const more: [string, string][] = [];
    let i = 1;
    for (; i < c.argv.length && c.argv[i].includes('=') && isName(c.argv[i].slice(0, c.argv[i].indexOf('='))); i++) more.push([c.argv[i].slice(0, c.argv[i].indexOf('=')), c.argv[i].slice(c.argv[i].indexOf('=') + 1)]);
    const env = more.length ? c.env.with(more) : c.env;
    if (i >= c.argv.length) {
      c.stdout.write(envLines(env));
      return 0;
    }
    const fn = c.shell.host.commands.get(c.argv[i]);
    if (!fn) {
      c.stderr.write(`env: can't execute '${c.argv[i]}': No such file or directory\n`);
      return 127;
    }
    return fn({ ...c, argv: c.argv.slice(i), env });
  });
  m.set('printenv', async ({ argv, env, stdout }) => {
    if (argv.length < 2) {
      stdout.write(envLines(env));
      return 0;
    }
    let code = 0;
    for (const n of argv.slice(1)) {
      const v = env.get(n);
      if (v === undefined) code = 1;
      else stdout.write(`${v}\n`);
    }
    return code;
  });
  m.set('pwd', async ({ shell, stdout }) => (stdout.write(`${shell.cwd}\n`), 0));
  m.set('cd', async ({ argv, shell, stderr }) => {
    const target = argv[1] ?? shell.vars.get('HOME') ?? '/';
    const path = resolvePath(shell.cwd, target);
    const node = shell.host.fs.lookup(path);
    if (!node || node.type !== 'dir') {
      stderr.write(`sh: cd: can't cd to ${target}: ${node ? 'Not a directory' : 'No such file or directory'}\n`);
      return 2;
    }
    shell.cwd = path;
    shell.setVar('PWD', path);
    return 0;
  });
  m.set('exit', async ({ argv, shell, stderr }) => {
    if (argv[1] !== undefined && !/^-?\d{1,10}$/.test(argv[1])) {
      stderr.write(`sh: exit: Illegal number: ${argv[1]}\n`);
      throw new ExitSignal(2);
    }
    throw new ExitSignal(argv[1] === undefined ? shell.status : Number(argv[1]) & 255);
  });
  m.set('export', async ({ argv, shell, stdout }) => {
    if (argv.length < 2) {
      let size = 0;
      for (const [n, v] of [...shell.vars.exported()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (size > maxOutputBytes) break;
        const line = `export ${n}='${v.replace(/'/g, `'"'"'`)}'\n`;
        stdout.write(line);
        size += line.length;
      }
      return 0;
    }
    for (const a of argv.slice(1)) {
      const eq = a.indexOf('=');
      const name = eq >= 0 ? a.slice(0, eq) : a;
      if (!isName(name)) continue;
      if (eq >= 0) shell.setVar(name, a.slice(eq + 1));
      shell.vars.export(name);
    }
    return 0;
  });
  m.set('unset', async ({ argv, shell }) => {
    for (const n of argv.slice(1)) shell.vars.delete(n);
    return 0;
  });
  m.set('sleep', async ({ argv, stderr }) => {
    let total = 0;
    for (const a of argv.slice(1)) {
      const mm = /^(\d+(?:\.\d*)?|\.\d+|inf|infinity)([smhd]?)$/.exec(a);
      if (!mm) {
        stderr.write(`sleep: invalid number '${a}'\n`);
        return 1;
      }
      total += (mm[1].startsWith('inf') ? Infinity : Number(mm[1])) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[mm[2]] * 1000;
    }
    if (argv.length < 2) {
      stderr.write('sleep: missing operand\n');
      return 1;
    }
    await info.sleep(total);
    return 0;
  });
  const tenv = (c: CmdContext) => ({ lookup: (p: string) => c.shell.host.fs.lookup(resolvePath(c.shell.cwd, p)), tty: info.tty });
  m.set('test', async (c) => testExpr(c.argv.slice(1), tenv(c), c.stderr, 'test'));
  m.set('[', async (c) => {
    if (c.argv[c.argv.length - 1] !== ']') {
      c.stderr.write('[: missing ]\n');
      return 2;
    }
    return testExpr(c.argv.slice(1, -1), tenv(c), c.stderr, '[');
  });
  const uid = info.container.securityContext?.runAsUser ?? info.pod.spec?.securityContext?.runAsUser ?? 0;
  const gid = info.container.securityContext?.runAsGroup ?? info.pod.spec?.securityContext?.runAsGroup ?? 0;
  const uname = (n: number) => (n === 0 ? 'root' : n === 65534 ? 'nobody' : undefined);
  m.set('id', async ({ stdout }) => {
    const u = uname(uid);
    const g = uname(gid);
    stdout.write(`uid=${uid}${u ? `(${u})` : ''} gid=${gid}${g ? `(${g})` : ''} groups=${gid}${g ? `(${g})` : ''}\n`);
    return 0;
  });
  m.set('whoami', async ({ stdout, stderr }) => {
    const u = uname(uid);
    if (!u) {
      stderr.write(`whoami: unknown uid ${uid}\n`);
      return 1;
    }
    stdout.write(`${u}\n`);
    return 0;
  });
  m.set('hostname', async ({ argv, stdout }) => {
    stdout.write(`${argv[1] === '-i' ? info.pod.status?.podIP ?? '' : info.hostname}\n`);
    return 0;
  });
  m.set('date', async ({ argv, stdout }) => {
    const d = new Date(info.nowMs());
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    const fmt = argv.find((a) => a.startsWith('+'))?.slice(1) ?? '%a %b %e %H:%M:%S %Z %Y';
    const out = fmt.replace(/%([a-zA-Z%])/g, (all, c: string) => ({
      a: days[d.getUTCDay()], b: months[d.getUTCMonth()], e: String(d.getUTCDate()).padStart(2, ' '), d: p(d.getUTCDate()), H: p(d.getUTCHours()),
      M: p(d.getUTCMinutes()), S: p(d.getUTCSeconds()), Z: 'UTC', Y: String(d.getUTCFullYear()), m: p(d.getUTCMonth() + 1), s: String(Math.floor(d.getTime() / 1000)),
      F: `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`, T: `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`, '%': '%',
    } as Record<string, string>)[c] ?? all);
    stdout.write(`${out}\n`);
    return 0;
  });
  // uptime counts from the pod's start (a container shares the node's uptime upstream; the pod's reads better here).
  m.set('uptime', async ({ stdout }) => {
    const now = info.nowMs();
    const started = Date.parse(info.pod.status?.startTime ?? '');
    const mins = Math.max(0, Math.floor((now - (Number.isFinite(started) ? started : now)) / 60_000));
    const days = Math.floor(mins / 1440);
    const hm = mins % 1440;
    const up = `${days ? `${days} day${days === 1 ? '' : 's'}, ` : ''}${hm < 60 ? `${hm} min` : `${Math.floor(hm / 60)}:${String(hm % 60).padStart(2, '0')}`}`;
    const t = new Date(now).toISOString().slice(11, 19);
    stdout.write(` ${t} up ${up},  0 users,  load average: 0.00, 0.00, 0.00\n`);
    return 0;
  });
  m.set('uname', async ({ argv, stdout }) => {
    const f = argv.slice(1).join('');
    const parts: string[] = [];
    const all = f.includes('a');
    if (all || f.includes('s') || !f) parts.push('Linux');
    if (all || f.includes('n')) parts.push(info.hostname);
    if (all || f.includes('r')) parts.push('6.8.0-bonsai');
    if (all || f.includes('v')) parts.push('#1 SMP PREEMPT_DYNAMIC');
    if (all || f.includes('m')) parts.push('x86_64');
    if (all) parts.push('GNU/Linux');
    stdout.write(`${parts.join(' ')}\n`);
    return 0;
  });
  m.set('ps', async ({ argv, stdout }) => {
    const target = targetProcesses(info);
    if (target) {
      // A debug container sharing its target's process namespace (`kubectl debug --target`): the target's first.
      const row = (pid: number, user: string, cmd: string) => `${String(pid).padStart(5)} ${user.padEnd(8)} 0:00 ${cmd}\n`;
      const next = 30 + target.length;
      stdout.write(`PID   USER     TIME  COMMAND\n${target.map(([user, cmd], i) => row(i === 0 ? 1 : 29 + i, user, cmd)).join('')}${row(next, 'root', info.mainProcess)}${row(next + 6, 'root', argv.join(' '))}`);
      return 0;
    }
    stdout.write(`PID   USER     TIME  COMMAND\n    1 root      0:00 ${info.mainProcess}\n`);
    if (info.tty) stdout.write('    7 root      0:00 sh\n');
    stdout.write(`   ${info.tty ? 13 : 7} root      0:00 ${argv.join(' ')}\n`);
    return 0;
  });
  const sh: CommandFn = async (c: CmdContext) => {
    const a = c.argv;
    if (a[1] === '-c') {
      if (a[2] === undefined) {
        c.stderr.write('sh: -c requires an argument\n');
        return 2;
      }
      const child = c.shell.child([a[3] ?? 'sh', ...a.slice(4)]);
      return runProgram(child, a[2], c);
    }
    const child = c.shell.child([a[1] ?? 'sh', ...a.slice(2)]);
    const src = a[1] !== undefined ? c.shell.host.fs.readFile(resolvePath(c.shell.cwd, a[1])).toString('utf8') : (await c.stdin.readAll()).toString('utf8');
    return runProgram(child, src, c);
  };
  m.set('sh', sh).set('bash', sh).set('ash', sh).set('dash', sh);
  // `exec CMD`: the shell becomes CMD, so the shell ends with CMD's status.
  m.set('exec', async (c) => {
    if (c.argv.length < 2) return 0;
    const fn = c.shell.host.commands.get(c.argv[1]);
    if (!fn) {
      c.stderr.write(`sh: exec: ${c.argv[1]}: not found\n`);
      throw new ExitSignal(127);
    }
    throw new ExitSignal(await fn({ ...c, argv: c.argv.slice(1) }));
  });
  return m;
}
