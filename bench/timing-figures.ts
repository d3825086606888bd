// Figures the test suite used to assert as wall-clock limits (issue 22: correctness never depends on speed, so the
// tests now check outcomes and these are measured here instead): how long a virtual clock takes to run a paused
// cluster two hours forward with a pod sleeping one hour, and how long one CEL evaluation at upstream's per-call
// cost limit (1,000,000 units, counted) takes, the margin under the 5 s wall-clock guard.
import { performance } from 'node:perf_hooks';
import { startBonsai } from '../src/main.js';
import { loadCel } from '../src/cel/index.js';
import { defaultTimeGuardMs } from '../src/cel/budget.js';
import { ms, target, type Row } from './table.js';

async function virtualTwoHoursMs(): Promise<number> {
  const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', clock: 'virtual', addons: [] });
  try {
    b.clock.pause();
    const pods = b.registry.find('', 'v1', 'pods')!;
    await b.registry.create(pods, 'default', {
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'sleeper' },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sleep', '3600'] }] },
    });
    const t0 = performance.now();
    await b.clock.advance(2 * 3600_000);
    return performance.now() - t0;
  } finally {
    await b.close();
  }
}

async function celAtLimitMs(): Promise<{ ms: number; cost: number }> {
  const cel = await loadCel();
  const self = cel.toCelValue(Array.from({ length: 2000 }, (_, i) => i), undefined);
  const expr = 'self.all(x, self.all(y, self.all(z, x + y + z >= 0)))';
  cel.evaluate(expr, { self }); // compile and warm up
  const t0 = performance.now();
  const r = cel.evaluate(expr, { self });
  return { ms: performance.now() - t0, cost: r.cost };
}

export async function timingRows(log: (s: string) => void): Promise<Row[]> {
  const clockMs = await virtualTwoHoursMs();
  log(`   virtual clock: two hours (a pod sleeping one) in ${ms(clockMs)} of wall time`);
  const c = await celAtLimitMs();
  log(`   CEL: ${c.cost.toLocaleString('en-US')} cost units in ${ms(c.ms)}`);
  return [
    { figure: 'virtual clock: a paused cluster advanced 2 h (a pod sleeping 1 h), wall time', value: ms(clockMs), baseline: '-', verdict: target(clockMs < 2000, 'target < 2 s') },
    {
      figure: 'CEL: one evaluation stopped at the 1,000,000-unit per-call limit, wall time', value: ms(c.ms), baseline: '-',
      verdict: target(c.ms * 4 < defaultTimeGuardMs, `target < 1/4 of the ${defaultTimeGuardMs / 1000} s wall-clock guard`),
    },
  ];
}
