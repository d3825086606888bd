// Hostile input to the simulated shell: every case must end quickly with a bounded answer, never hang or crash.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, podSpec, exec, Feed, fakeSession, runtime, withBudget } from './exec-harness.js';

let h: Harness;
before(async () => {
  h = await Harness.start();
  await h.create(podSpec('p', {
    containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], env: [{ name: '__proto__', value: 'x' }, { name: 'constructor', value: 'y' }], volumeMounts: [{ name: 'd', mountPath: '/data' }] }],
    volumes: [{ name: 'd', emptyDir: {} }],
  }));
  await h.run(3000);
});
after(() => h.close());

const sh = (src: string) => exec(h, 'p', ['sh', '-c', src]);
const within = async <T>(ms: number, p: Promise<T>): Promise<T> => {
  let t: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, rej) => (t = setTimeout(() => rej(new Error(`took over ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, timeout]);
  } finally {
    clearTimeout(t);
  }
};

test('prototype-named variables are ordinary variables', async () => {
  const r = await sh('echo "$__proto__$constructor"; printenv __proto__');
  assert.equal(r.out, 'xy\nx\n');
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test('endless loops, deep recursion and exponential growth hit the bounds', async () => {
  // A small CPU budget, so that the endless loop ends soon (the default is 10 s).
  const loop = await within(60_000, withBudget({ cpuMs: 500 }, () => sh('while true; do :; done')));
  assert.equal(loop.exitCode, 137);
  assert.equal(loop.err, 'sh: CPU budget of 0.5 s exhausted; session ended\n');
  const rec = await within(5000, sh('f="sh -c \\"\\$f\\""; export f; sh -c "$f"'));
  assert.notEqual(rec.exitCode, 0);
  const grow = await within(5000, sh('x=ab; while true; do x=$x$x; done'));
  assert.match(grow.err, /word too long/);
  const output = await within(60_000, withBudget({ cpuMs: 500 }, () => sh('while true; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; done')));
  assert.ok(output.out.length <= 1 << 20, `output ${output.out.length} bytes`);
  assert.match(output.err, /^sh: (CPU|memory) budget of .* exhausted; session ended\n$/);
  const fill = await within(60_000, sh('while true; do cat /etc/passwd /etc/passwd /etc/passwd >> /data/big || exit 9; done'));
  assert.equal(fill.exitCode, 9);
  assert.match(fill.err, /File too large|No space left/);
});

test('deep syntax nesting and huge lines fail cleanly', async () => {
  const parens = await within(2000, sh(`${'('.repeat(10_000)}echo x${')'.repeat(10_000)}`));
  assert.equal(parens.exitCode, 2);
  assert.match(parens.err, /nested too deeply/);
  const subs = await within(5000, sh(`echo ${'$('.repeat(200)}echo x${')'.repeat(200)}`));
  assert.notEqual(subs.exitCode, 0);
  const arith = await within(2000, sh(`echo $((${'('.repeat(5000)}1${')'.repeat(5000)}))`));
  assert.equal(arith.exitCode, 2);
  const huge = await within(5000, exec(h, 'p', ['echo', 'a'.repeat(300_000)]));
  assert.equal(huge.exitCode, 126);
  // Past 20,000 words and operators a script is refused before it is parsed whole (parsing is one stretch of work).
  const tooLong = 'sh: syntax error: script too long (more than 20000 words and operators at once)\n';
  const many = await within(5000, sh(`echo ${'a '.repeat(100_000)}`));
  assert.deepEqual([many.exitCode, many.err], [2, tooLong]);
  const commands = await within(5000, sh(':;'.repeat(65_000)));
  assert.deepEqual([commands.exitCode, commands.err], [2, tooLong]);
  // Under that, argv is still bounded where the kernel bounds it.
  const args = await within(5000, sh(`x=${'a'.repeat(1000)}; echo ${'$x '.repeat(3000)}`));
  assert.deepEqual([args.exitCode, args.err], [2, 'sh: argument list too long\n']);
  const quote = await within(2000, sh(`echo "${'\\'.repeat(1001)}`));
  assert.equal(quote.exitCode, 2);
  const grep = await within(3000, sh(`printf '%s\\n' ${'a'.repeat(5000)} | grep -E '(a+)+b'; echo $?`));
  assert.equal(grep.out, '1\n');
});

test('binary garbage on stdin, in a TTY and without', async () => {
  const rt = await runtime();
  const garbage = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));
  const input = new Feed();
  const s = fakeSession(h, 'p', ['sh'], { tty: true, stdin: input });
  const done = rt.exec(s.session);
  input.push(garbage);
  input.push('\x15\x03echo survived\r');
  await s.waitOut('survived\r\n', 5000);
  input.push('exit\r');
  assert.equal(typeof (await within(5000, done)).exitCode, 'number');
  const plain = new Feed();
  const p = fakeSession(h, 'p', ['sh'], { stdin: plain });
  const d2 = rt.exec(p.session);
  plain.push(garbage);
  plain.push('\necho fine\n');
  plain.end();
  await within(5000, d2);
  assert.ok(p.stdout().includes('fine\n'));
  const cat = await within(5000, exec(h, 'p', ['cat'], { stdin: (async function* () { for (let i = 0; i < 40; i++) yield Buffer.alloc(64 * 1024, 1); })() }));
  assert.equal(cat.out.length, 1 << 20, 'cat echoes stdin up to the bound');
});

test('a shell reading many lines of input hands the event loop back between slices of them', async () => {
  const rt = await runtime();
  const input = new Feed();
  const s = fakeSession(h, 'p', ['sh'], { stdin: input });
  const order: string[] = [];
  const done = rt.exec(s.session).then(() => order.push('session ended'));
  // Queued before the input arrives: it runs at the session's first yield, or after the whole input if it never yields.
  setImmediate(() => order.push('other work'));
  input.push(`${':\n'.repeat(25_000)}echo done\n`); // 50 KB: within what the session buffers
  input.end();
  await within(20_000, done);
  assert.ok(s.stdout().endsWith('done\n'));
  assert.deepEqual(order, ['other work', 'session ended']);
});

test('a session whose client leaves stops its command', async () => {
  const rt = await runtime();
  const s = fakeSession(h, 'p', ['sleep', '100000']);
  const done = rt.exec(s.session);
  setTimeout(() => s.abort(), 10);
  assert.equal((await within(2000, done)).exitCode, 130);
});
