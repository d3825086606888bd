// Each exec session's CPU and memory budget (issue 22): bombs end with the budget's message and exit code 137, the
// event loop keeps turning while they run, and ordinary scripts are not affected.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, podSpec, exec, Feed, fakeSession, runtime, withBudget } from './exec-harness.js';

// Sessions run under the default budget (10 s of CPU, 64 MiB) unless a test gives a bomb a smaller CPU budget.
let h: Harness;
before(async () => {
  h = await Harness.start();
  await h.create(podSpec('p', {
    containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'], volumeMounts: [{ name: 'd', mountPath: '/data' }] }],
    volumes: [{ name: 'd', emptyDir: {} }],
  }));
  await h.run(3000);
});
after(() => h.close());

const sh = (src: string) => exec(h, 'p', ['sh', '-c', src]);
const cpuSpent = 'sh: CPU budget of 1 s exhausted; session ended\n';
const memorySpent = 'sh: memory budget of 64 MiB exhausted; session ended\n';

test('the export loop of the issue ends with the memory budget: the variable table is part of it', async () => {
  const r = await sh('i=0; while [ $i -lt 20000 ]; do export V$i=1; i=$((i+1)); done');
  assert.equal(r.exitCode, 137);
  assert.equal(r.err, 'sh: memory budget exhausted (more than 10000 variables); session ended\n');
});

test('an endless loop ends with the CPU budget, and timers keep firing meanwhile', async () => {
  let ticks = 0;
  let during = 0;
  let running = true;
  const timer = setInterval(() => {
    ticks++;
    if (running) during++;
  }, 5);
  try {
    const r = await withBudget({ cpuMs: 1000 }, () => sh('i=0; while [ $i -lt 100000000 ]; do export V$((i % 5000))=$i; i=$((i+1)); done'));
    running = false;
    assert.equal(r.exitCode, 137);
    assert.equal(r.err, cpuSpent);
    assert.ok(during > 0, `no timer fired while the shell ran (${ticks} in all)`);
  } finally {
    clearInterval(timer);
  }
});

test('memory bombs end with the memory budget', async () => {
  const doubling = await sh('cd /data; echo x > f; while true; do cat f f > g; cat g > f; done');
  assert.deepEqual([doubling.exitCode, doubling.err], [137, memorySpent]);
  const flood = await sh('y=yyyyyyyy; while [ ${#y} -lt 100000 ]; do y=$y$y; done; while true; do echo $y; done');
  assert.deepEqual([flood.exitCode, flood.err], [137, memorySpent]);
  assert.ok(flood.out.length <= 1 << 20, `output ${flood.out.length} bytes`);
  const vars = await sh('x=ab; while [ ${#x} -lt 100000 ]; do x=$x$x; done; i=0; while true; do export V$i="$x$i"; i=$((i+1)); done');
  assert.deepEqual([vars.exitCode, vars.err], [137, memorySpent]);
  const many = await exec(h, 'p', ['cat', ...Array.from({ length: 200 }, () => '/data/f')]);
  assert.deepEqual([many.exitCode, many.err], [137, memorySpent]);
});

test('an interactive session that spends its budget ends as a killed shell', async () => {
  const input = new Feed();
  const s = fakeSession(h, 'p', ['sh'], { tty: true, stdin: input });
  const rt = await runtime();
  const done = withBudget({ cpuMs: 1000 }, () => rt.exec(s.session));
  input.push('echo started\r');
  await s.waitOut('started\r\n', 10_000);
  input.push('while :; do :; done\r');
  const o = await done;
  assert.equal(o.exitCode, 137);
  assert.ok(s.stdout().endsWith(`\r\n${cpuSpent.replace('\n', '\r\n')}`), JSON.stringify(s.stdout().slice(-200)));
});

test('every session has its own budget, and ordinary scripts keep working', async () => {
  for (let i = 0; i < 3; i++) {
    const r = await sh('i=0; s=0; while [ $i -lt 300 ]; do s=$((s+i)); i=$((i+1)); done; echo $s; export A=1; (unset A; echo "${A:-unset}"); echo $A; sh -c \'B=2; echo $B$A\'; echo "${B:-none}"');
    assert.deepEqual([r.exitCode, r.out, r.err], [0, '44850\nunset\n1\n21\nnone\n', '']);
  }
});

test('seq counts as busybox does, a huge one ends with the budget; uptime prints one line', async () => {
  const r = await sh('seq 3; seq 2 4; seq 5 -2 1; for i in $(seq 1 3); do echo x$i; done; seq 1 0; seq x');
  assert.equal(r.out, '1\n2\n3\n2\n3\n4\n5\n3\n1\nx1\nx2\nx3\n');
  assert.equal(r.err, "seq: invalid number 'x'\n");
  const bomb = await withBudget({ cpuMs: 1000 }, () => sh('seq 1 999999999999999 > /dev/null'));
  assert.equal(bomb.exitCode, 137);
  assert.match((await sh('uptime')).out, /^ \d\d:\d\d:\d\d up \d+ min, {2}0 users, {2}load average: 0\.00, 0\.00, 0\.00\n$/);
});

test('text utilities over large input: paced, bounded, still right', async () => {
  const seq = 'i=0; while [ $i -lt 9000 ]; do echo $((9000 - i)); i=$((i+1)); done > /data/n';
  const r = await sh(`${seq}; sort -n /data/n | head -n 2; sort /data/n | tail -n 1; sort -r -u /data/n /data/n | wc -l; grep -c 0 /data/n; wc /data/n; head -c 5 /data/n; tail -c 3 /data/n`);
  assert.equal(r.err, '');
  assert.equal(r.out, '1\n2\n999\n9000\n2349\n   9000    9000   43893 /data/n\n9000\n\n1\n');
  const tail = await sh('printf "a\\nb\\nc" | tail -n 2; echo; printf "a\\nb\\n" | tail -n 5; printf "" | tail -n 1; printf "\\n\\n" | head -n 1 | wc -c');
  assert.equal(tail.out, 'b\nc\na\nb\n1\n');
  const big = await sh('cd /data; x=1; while [ ${#x} -lt 100000 ]; do x="$x$x"; done; echo "$x" > a; cat a a > b; cat b b > c; cat c c > d; sort c d | wc -l');
  assert.equal(big.err, 'sort: d: input too large\n');
  assert.equal(big.out, '4\n');
});
