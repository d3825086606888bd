// Preloaded into a Bonsai server by the scale bench (`node --expose-gc --import <this file> bin.js serve ...`):
// every 250 ms it writes the process's V8 heap figures to the file named by BONSAI_BENCH_PROBE (written to a
// temporary name, then renamed, so a reader never sees half a file). On SIGUSR2 it runs a full GC first (when
// --expose-gc is on) and writes at once, so the bench can read the live heap at a point of its choosing. It also
// adds up the process's major (mark-compact) GC pauses, so a timed step can say how much of it was one.
// Nothing in Bonsai imports this file; without the variable it does nothing.
import { renameSync, writeFileSync } from 'node:fs';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';

export interface ProbeSample {
  /** Date.now() of the sample. */
  at: number;
  heapUsed: number;
  heapTotal: number;
  /** V8's heap limit (heap_size_limit). */
  heapLimit: number;
  /** Highest heapUsed seen by the 250 ms sampling. */
  peakHeapUsed: number;
  external: number;
  /** Number of SIGUSR2-requested samples written so far (the last one was taken right after a full GC). */
  gcSeq: number;
  /** The total of the major GC pauses so far, SIGUSR2's included (ms). */
  majorGcMs: number;
}

const file = process.env.BONSAI_BENCH_PROBE;
if (file) {
  let peak = 0;
  let gcSeq = 0;
  let majorGcMs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if ((e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !== constants.NODE_PERFORMANCE_GC_MAJOR) continue;
      majorGcMs += e.duration;
    }
  }).observe({ entryTypes: ['gc'] });
  const write = () => {
    const h = getHeapStatistics();
    peak = Math.max(peak, h.used_heap_size);
    const s: ProbeSample = {
      at: Date.now(), heapUsed: h.used_heap_size, heapTotal: h.total_heap_size, heapLimit: h.heap_size_limit,
      peakHeapUsed: peak, external: h.external_memory, gcSeq, majorGcMs,
    };
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify(s));
      renameSync(`${file}.tmp`, file);
    } catch { /* the bench removed its scratch directory: nothing to report to */ }
  };
  setInterval(write, 250).unref();
  process.on('SIGUSR2', () => {
    const gc = (globalThis as { gc?: () => void }).gc;
    if (gc) gc();
    gcSeq++;
    write();
  });
  write();
}
