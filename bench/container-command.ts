// Container commands (issue 22): the longest the kubelet's command runner holds the event loop for one container,
// over the worst scripts a pod can carry (spinning loops, builders, 128 KiB scripts). The runner is the simulated
// runtime's shell, as the kubelet asks it (src/exec/container-command.ts): it runs a command all at once in simulated
// time, bounded by steps, handing the event loop back every few ms; the hold is the longest the loop went without a
// turn meanwhile. Each script runs in a fresh process (a server with no nodes), so the first run is measured before V8
// has optimized the shell (the worst case), then the median of 21 more runs (warm).
// Target: 20 ms cold on a quiet machine.
import { spawnSync } from 'node:child_process';
import { join, ms, target, type Row } from './table.js';

const long = (unit: string) => unit.repeat(Math.floor(131_000 / unit.length));

const scripts: { name: string; src: string }[] = [
  { name: 'export loop (issue repro)', src: 'i=0; while [ $i -lt 20000 ]; do export V$i=1; i=$((i+1)); done' },
  { name: 'string doubling', src: 'x=a; while true; do x=$x$x; done' },
  { name: 'sleep loop', src: 'while true; do sleep 0.001; done' },
  { name: 'sleep loop building words', src: `x=${'a'.repeat(1000)}; x=$x$x$x$x$x$x$x$x; while true; do sleep 1; y=${'$x'.repeat(30)}; done` },
  { name: '128 KiB script of commands', src: long(':;') },
  { name: '128 KiB script of assignments', src: `${long('x=1 ')}true` },
  { name: '128 KiB word of references', src: `x=${'a'.repeat(48)}; echo ${long('$x')}` },
];

const child = `
const [main, client, exec, src] = process.argv.slice(1);
const { startBonsai } = await import(main);
const { clientFor } = await import(client);
const { newRuntime } = await import(exec);
const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [], controllers: [] });
try {
  const runtime = newRuntime();
  const c = clientFor(b.registry);
  const container = { name: 'c', image: 'busybox', command: ['sh', '-c', src], env: [] };
  const pod = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { nodeName: 'node-1', containers: [container] } };
  // The hold: the longest the event loop went without a turn while the command ran (a probe rescheduling itself).
  const run = async () => {
    let last = performance.now();
    let hold = 0;
    let running = true;
    const probe = () => {
      const now = performance.now();
      hold = Math.max(hold, now - last);
      last = now;
      if (running) setImmediate(probe);
    };
    setImmediate(probe);
    const t = performance.now();
    const r = await runtime.runCommand({ client: c, pod, container, argv: container.command, startMs: 0 });
    running = false;
    if (!r) throw new Error('the shell did not run the script');
    return { hold: Math.max(hold, performance.now() - last), ms: performance.now() - t };
  };
  const cold = await run();
  const warm = [];
  for (let i = 0; i < 21; i++) warm.push(await run());
  warm.sort((a, b) => a.hold - b.hold);
  console.log(JSON.stringify({ cold: cold.hold, coldRun: cold.ms, warm: warm[10].hold }));
} finally {
  await b.close();
}
`;

interface Holds { cold: number; coldRun: number; warm: number }

function measure(src: string): Holds {
  const url = (path: string) => new URL(`../src/${path}`, import.meta.url).href;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', child, url('main.js'), url('client/client.js'), url('exec/index.js'), src], { encoding: 'utf8' });
  try {
    return JSON.parse(r.stdout) as Holds;
  } catch {
    return { cold: NaN, coldRun: NaN, warm: NaN };
  }
}

export function containerCommandRows(quick: boolean, log: (s: string) => void): Row[] {
  log('Container commands: the longest one container\'s command holds the event loop (cold, then warm)');
  let cold = 0;
  let warm = 0;
  let longestRun = 0;
  for (const s of scripts) {
    // The best of a few fresh processes: the figure is the interpreter's own work, not the machine's other load.
    const runs = Array.from({ length: quick ? 2 : 5 }, () => measure(s.src));
    const c = Math.min(...runs.map((r) => r.cold));
    const w = Math.min(...runs.map((r) => r.warm));
    const run = Math.min(...runs.map((r) => r.coldRun));
    log(`   ${s.name}: ${ms(c)} cold (the run ${ms(run)}), ${ms(w)} warm`);
    cold = Math.max(cold, c);
    warm = Math.max(warm, w);
    longestRun = Math.max(longestRun, run);
  }
  return [{
    figure: 'container command: worst event-loop hold of one container (cold)', value: ms(cold), baseline: '-',
    verdict: join(target(cold <= 20, 'target <= 20 ms'), `warm ${ms(warm)}`, `longest cold run ${ms(longestRun)}`),
  }];
}
