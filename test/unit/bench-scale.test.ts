// The scale bench's own machinery: its configuration, the heap probe it preloads into servers, and the section
// argument of bench/run.ts. (The figures themselves are measured by `npm run bench -- scale`.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { scaleConfig } from '../../bench/scale.js';
import { cleanup } from '../../bench/proc.js';
import type { ProbeSample } from '../../bench/scale-probe.js';

const distBench = resolve('dist', 'bench');

test('scaleConfig shrinks every count by BENCH_SCALE and refuses nonsense', async (t) => {
  t.after(cleanup);
  const saved = process.env.BENCH_SCALE;
  try {
    delete process.env.BENCH_SCALE;
    assert.deepEqual(scaleConfig(false), { factor: 1, nodes: 5000, pods: 150_000, clients: 24, filePods: 100_000, inflightPods: 20_000 });
    assert.equal(scaleConfig(true).factor, 0.05);
    process.env.BENCH_SCALE = '0.1';
    const c = scaleConfig(false);
    assert.equal(c.nodes, 500);
    assert.equal(c.pods, 15_000);
    assert.equal(c.filePods, 10_000);
    for (const bad of ['0', '-1', 'x', '3']) {
      process.env.BENCH_SCALE = bad;
      assert.throws(() => scaleConfig(false), /BENCH_SCALE/);
    }
  } finally {
    if (saved === undefined) delete process.env.BENCH_SCALE;
    else process.env.BENCH_SCALE = saved;
  }
});

async function readProbe(file: string, ok: (s: ProbeSample) => boolean): Promise<ProbeSample> {
  for (let i = 0; i < 500; i++) {
    if (existsSync(file)) {
      try {
        const s = JSON.parse(readFileSync(file, 'utf8')) as ProbeSample;
        if (ok(s)) return s;
      } catch { /* mid-rename: retry */ }
    }
    await sleep(20);
  }
  throw new Error('the probe never wrote the expected sample');
}

test('the heap probe samples the heap and, on SIGUSR2, writes a sample taken after a full GC', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-probe-'));
  const file = join(dir, 'heap.json');
  const probe = pathToFileURL(join(distBench, 'scale-probe.js')).href;
  // A child that allocates ~50 MB of garbage once, then idles.
  const child = spawn(process.execPath, ['--expose-gc', '--import', probe, '-e', 'let g = []; for (let i = 0; i < 500; i++) g.push(new Array(12500).fill(i)); g = null; setInterval(() => {}, 1000);'], { env: { ...process.env, BONSAI_BENCH_PROBE: file }, stdio: 'ignore' });
  try {
    const first = await readProbe(file, (s) => s.peakHeapUsed > 30 * 2 ** 20);
    assert.equal(first.gcSeq, 0);
    assert.ok(first.heapLimit > first.heapUsed, 'the heap limit is reported');
    child.kill('SIGUSR2');
    const after = await readProbe(file, (s) => s.gcSeq === 1);
    assert.ok(after.heapUsed < 20 * 2 ** 20, `after the forced GC the garbage is gone (${after.heapUsed} bytes used)`);
    assert.ok(after.peakHeapUsed >= first.peakHeapUsed);
    assert.equal(child.exitCode, null, 'SIGUSR2 does not end the process');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('bench/run.js refuses an unknown section with its usage and exit code 2', () => {
  const r = spawnSync(process.execPath, [join(distBench, 'run.js'), 'bogus'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /usage: npm run bench \[-- scale \| storage \| all\]/);
});
