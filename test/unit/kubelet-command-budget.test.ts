// The container command interpreter's budget (issue 22): a script that spins or builds without end is ended by
// counts (steps without a sleep, bytes built), the same way on any machine, while ordinary commands and sleep loops
// behave as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { interpret } from './command-harness.js';
import { maxBusySteps } from '../../src/exec/shell/step-budget.js';
import { podSpec, withHarness } from './kubelet-harness.js';

const env = { env: { HOSTNAME: 'p', PATH: '/bin' }, startMs: Date.UTC(2026, 0, 1) };
const sh = (script: string) => interpret(['sh', '-c', script], undefined, env);
const text = (r: Awaited<ReturnType<typeof interpret>>) => r?.lines.map((l) => l.text);
const cpuSpent = `sh: CPU budget of ${maxBusySteps} steps without a sleep exhausted; process ended`;
const exportLoop = 'i=0; while [ $i -lt 20000 ]; do export V$i=1; i=$((i+1)); done';

test('the export loop of issue 22 spends its CPU budget: killed (137), the same outcome on every run', async () => {
  const r = await sh(exportLoop);
  assert.deepEqual(r, { lines: [{ atMs: 0, text: cpuSpent }], runMs: 0, exitCode: 137 });
  assert.deepEqual((await sh(exportLoop)), r);
  assert.equal((await sh('while true; do :; done'))?.exitCode, 137);
  // Output does not count as sleeping: the lines printed before the budget ran out are kept, then the budget's line.
  const spam = (await sh('while true; do sleep 0; echo spam; done'));
  assert.equal(spam?.exitCode, 137);
  assert.deepEqual(text(spam)?.slice(-2), ['spam', cpuSpent]);
});

test('the budget counts steps since the last sleep: a busy stretch after sleeping ends at its own time', async () => {
  const r = (await sh('echo start; sleep 5; while true; do :; done'));
  assert.deepEqual(r, { lines: [{ atMs: 0, text: 'start' }, { atMs: 5000, text: cpuSpent }], runMs: 5000, exitCode: 137 });
});

test('a string doubled without end, or one word of many references, is killed for its memory', async () => {
  const memory = 'sh: memory budget exhausted (a word over 256 KiB); process ended';
  const doubling = (await sh('x=a; while true; do x=$x$x; done'));
  assert.deepEqual(doubling, { lines: [{ atMs: 0, text: memory }], runMs: 0, exitCode: 137 });
  assert.deepEqual((await sh('x=a; while true; do x=$x$x; done')), doubling);
  // 4,000 references to a 1 KiB value: stopped at 256 KiB, the 4 MiB word is never built.
  const wide = (await sh(`x=${'a'.repeat(1024)}; y=${'$x'.repeat(4000)}; echo never`));
  assert.deepEqual([wide?.exitCode, text(wide)], [137, [memory]]);
});

test('a sleep loop that builds large words spends the memory budget (4 MiB built in all)', async () => {
  const r = (await sh(`x=${'a'.repeat(1000)}; x=$x$x$x$x$x$x$x$x$x$x; while true; do sleep 1; y=$x$x$x$x$x$x$x$x$x$x$x$x$x$x$x$x; done`));
  assert.equal(r?.exitCode, 137);
  assert.deepEqual(text(r), ['sh: memory budget of 4 MiB exhausted; process ended']);
  assert.ok(r !== undefined && r.runMs !== undefined && r.runMs > 0);
});

test('ordinary commands and sleep loops are untouched by the budget', async () => {
  assert.deepEqual((await sh('echo hi; exit 3')), { lines: [{ atMs: 0, text: 'hi' }], runMs: 0, exitCode: 3 });
  const ticks = (await sh('while true; do echo tick; sleep 1; done'));
  assert.equal(ticks?.runMs, undefined);
  assert.equal(ticks?.lines.length, 2000);
  assert.deepEqual(ticks?.lines[1999], { atMs: 1_999_000, text: 'tick' });
  assert.equal((await sh('while true; do sleep 0.001; done'))?.runMs, undefined);
  assert.equal((await sh('while true; do date; sleep 10; done'))?.lines.length, 361);
  const counted = (await sh(`for i in ${Array.from({ length: 500 }, (_, i) => i).join(' ')}; do echo n$i; done; exit 4`));
  assert.deepEqual([counted?.exitCode, counted?.lines.length, counted?.lines[499].text], [4, 500, 'n499']);
});

test('shells nested in shells without end stop with an error instead of overflowing the stack', async () => {
  const r = await interpret(['sh', '-c', 'sh -c "$x"'], undefined, { ...env, env: { ...env.env, x: 'sh -c "$x"' } });
  assert.deepEqual([r?.exitCode, text(r)], [2, ['sh: shells nested too deeply']]);
  assert.deepEqual(text((await sh('sh -c "sh -c \'echo three deep\'"'))), ['three deep']);
});

test('a pod whose command spends the budget fails with exit code 137', () => withHarness(async (h) => {
  await h.create(podSpec('bomb', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', exportLoop] }] }));
  await h.run(3000);
  const p = h.pod('bomb');
  assert.equal(p?.status?.phase, 'Failed');
  const term = p?.status?.containerStatuses?.[0]?.state?.terminated;
  assert.deepEqual([term?.exitCode, term?.reason], [137, 'Error']);
}));

test('a script too long to read within the budget is ended while it is read: its end is never parsed', async () => {
  // 60,000 commands with no space between them, then a syntax error: reading counts each command, so the run spends
  // its budget (as a loop would) before the script is parsed, and the error is never reached.
  const ended = { lines: [{ atMs: 0, text: cpuSpent }], runMs: 0, exitCode: 137 };
  assert.deepEqual(await sh(`${':;'.repeat(60_000)} (((`), ended);
  // The same with 4,000 commands fits the budget: parsed whole, the syntax error is reported.
  const short = await sh(`${':;'.repeat(4_000)} (((`);
  assert.equal(short?.exitCode, 2);
  assert.match(text(short)?.[0] ?? '', /^sh: syntax error/);
  // 20,000 references in one word are 20,000 steps to read: ended too, the word never built.
  assert.deepEqual(await sh(`x=a; echo ${'$x'.repeat(20_000)}`), ended);
});
