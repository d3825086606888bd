// The container command interpreter: what common commands print, how long they run and how they exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpret } from './command-harness.js';

const env = { env: { HOSTNAME: 'p', GREETING: 'hello' }, startMs: Date.UTC(2026, 0, 1) };
const sh = (script: string) => interpret(['sh', '-c', script], undefined, env);
const text = (r: Awaited<ReturnType<typeof interpret>>) => r?.lines.map((l) => l.text);

test('unknown programs are left to the defaults', async () => {
  assert.equal((await interpret(['nginx', '-g', 'daemon off;'], undefined, env)), undefined);
  assert.equal((await interpret(undefined, undefined, env)), undefined);
});

test('sleep, exit, true/false at top level and through sh -c, bash -c, /bin/sh -c', async () => {
  assert.deepEqual((await interpret(['sleep', '5'], undefined, env)), { lines: [], runMs: 5000, exitCode: 0 });
  assert.equal((await interpret(['sleep', 'infinity'], undefined, env))?.runMs, undefined);
  assert.equal((await interpret(undefined, ['sleep', '3600'], env))?.runMs, 3_600_000);
  assert.equal((await interpret(['false'], undefined, env))?.exitCode, 1);
  assert.deepEqual((await interpret(['/bin/sh', '-c', 'exit 7'], undefined, env)), { lines: [], runMs: 0, exitCode: 7 });
  assert.equal((await interpret(['bash', '-c', 'sleep 1; sleep 2m'], undefined, env))?.runMs, 121_000);
  assert.equal((await interpret(['sleep', '1.5'], undefined, env))?.runMs, 1500);
});

test('echo output, quoting and variables', async () => {
  assert.deepEqual(text((await sh(`echo hi; echo 'a  b' "c $GREETING" \\$HOME; echo -n x`))), ['hi', 'a  b c hello $HOME', 'x']);
  assert.deepEqual(text((await sh('echo $HOSTNAME ${GREETING}!'))), ['p hello!']);
  const r = (await sh('echo hi; exit 3'));
  assert.deepEqual([text(r), r?.exitCode, r?.runMs], [['hi'], 3, 0]);
});

test('&& and || follow exit codes; the last command decides the exit code', async () => {
  assert.deepEqual(text((await sh('false && echo no || echo yes'))), ['yes']);
  assert.deepEqual(text((await sh('true && echo a; false || echo b && echo c'))), ['a', 'b', 'c']);
  assert.equal((await sh('echo x; false'))?.exitCode, 1);
  assert.equal((await sh('false; true'))?.exitCode, 0);
});

test('output lines carry the time they are printed', async () => {
  assert.deepEqual((await sh('echo start; sleep 2; echo end'))?.lines, [{ atMs: 0, text: 'start' }, { atMs: 2000, text: 'end' }]);
});

test('loops and conditionals', async () => {
  assert.deepEqual(text((await sh('for i in 1 2 3; do echo n$i; done'))), ['n1', 'n2', 'n3']);
  const forever = (await sh('while true; do echo tick; sleep 5; done'));
  assert.equal(forever?.runMs, undefined);
  assert.deepEqual(forever?.lines.slice(0, 2), [{ atMs: 0, text: 'tick' }, { atMs: 5000, text: 'tick' }]);
  assert.deepEqual(text((await sh('if false; then echo a; else echo b; fi'))), ['b']);
});

test('printenv and env print the environment', async () => {
  assert.deepEqual(text((await sh('printenv GREETING'))), ['hello']);
  assert.ok(text((await interpret(['env'], undefined, env)))?.includes('HOSTNAME=p'));
});

test('exec of a server or tail -f runs until stopped; a syntax error exits 2', async () => {
  assert.equal((await sh('echo ready; exec nginx -g "daemon off;"'))?.runMs, undefined);
  assert.equal((await sh('tail -f /dev/null'))?.runMs, undefined);
  assert.equal((await sh('echo "unterminated'))?.exitCode, 2);
});

test('hostile scripts: nesting is bounded, variables named like Object members are ordinary', async () => {
  const nested = (n: number) => `${'if true; then '.repeat(n)}echo deep${'; fi'.repeat(n)}`;
  assert.deepEqual(text((await sh(nested(50)))), ['deep']);
  const tooDeep = await sh(nested(200));
  assert.equal(tooDeep?.exitCode, 2);
  assert.match(text(tooDeep)?.[0] ?? '', /nested too deeply/);
  // Reading a script costs a step a token: 20,000 tokens spend the CPU budget before the parser sees the nesting.
  const long = await sh(nested(5000));
  assert.equal(long?.exitCode, 137);
  assert.match(text(long)?.[0] ?? '', /CPU budget/);
  assert.deepEqual(text((await sh('echo "[$constructor][$toString][$__proto__]"'))), ['[][][]']);
  const withEnv = await interpret(['sh', '-c', 'echo $__proto__ $constructor'], undefined, { ...env, env: { ...env.env, ['__proto__']: 'p', constructor: 'c' } });
  assert.deepEqual(text(withEnv), ['p c']);
});

test('a variable doubled without end ends the process as killed (exit 137) instead of holding the server', async () => {
  const r = (await sh('x=ab; while true; do x=$x$x; done'));
  assert.equal(r?.exitCode, 137);
  assert.deepEqual(text(r), ['sh: memory budget exhausted (a word over 256 KiB); process ended']);
});
