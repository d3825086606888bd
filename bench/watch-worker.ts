// Many reading watches held in a worker thread, as watchers are other processes in real use: reading a thousand
// streams then does not stall the load generator's own event loop (its creates and their timing).
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { readingWatch, type RawWatch } from './raw-watch.js';

interface Init { url: string; paths: string[]; arrivals: boolean }
export interface WatchReport { delivered: number; open: number; bytes: number }
/** Per event: its resourceVersion and arrival time in ms since the epoch (performance.timeOrigin + now). */
export interface Arrivals { rvs: number[]; times: number[] }
type FromWorker = { type: 'ready' } | { type: 'error'; message: string } | ({ type: 'report' } & WatchReport) | ({ type: 'arrivals' } & Arrivals);

/** The load generator's side: starts the worker, asks for counts, arrivals, and ends it. */
export class WatchWorker {
  private constructor(private readonly worker: Worker) {}

  /** Opens `paths` as reading watches in a worker; resolves once every watch has its response head. */
  static async start(url: string, paths: string[], arrivals = false): Promise<WatchWorker> {
    const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { url, paths, arrivals } satisfies Init });
    const w = new WatchWorker(worker);
    await w.next('ready');
    return w;
  }

  private next<T extends FromWorker['type']>(type: T): Promise<Extract<FromWorker, { type: T }>> {
    return new Promise((resolve, reject) => {
      const onMessage = (m: FromWorker) => {
        if (m.type === 'error') return done(() => reject(new Error(m.message)));
        if (m.type === type) done(() => resolve(m as Extract<FromWorker, { type: T }>));
      };
      const onExit = () => done(() => reject(new Error('the watch worker exited')));
      const done = (then: () => void) => {
        this.worker.off('message', onMessage);
        this.worker.off('exit', onExit);
        then();
      };
      this.worker.on('message', onMessage);
      this.worker.once('exit', onExit);
    });
  }

  async report(): Promise<WatchReport> {
    this.worker.postMessage('report');
    return this.next('report');
  }

  async arrivals(): Promise<Arrivals> {
    this.worker.postMessage('arrivals');
    return this.next('arrivals');
  }

  async close(): Promise<void> {
    this.worker.postMessage('close');
    await this.worker.terminate();
  }
}

async function runWorker(): Promise<void> {
  const port = parentPort!;
  const { url, paths, arrivals } = workerData as Init;
  const rvs: number[] = [];
  const times: number[] = [];
  let delivered = 0;
  const onEvent = arrivals
    ? (rv: number, t: number) => { delivered++; rvs.push(rv); times.push(performance.timeOrigin + t); }
    : () => { delivered++; };
  const ws: RawWatch[] = [];
  try {
    // In groups, so that the server's accept backlog never overflows.
    for (let i = 0; i < paths.length; i += 100) ws.push(...await Promise.all(paths.slice(i, i + 100).map((p) => readingWatch(url, p, onEvent))));
  } catch (e) {
    port.postMessage({ type: 'error', message: e instanceof Error ? e.message : String(e) });
    return;
  }
  port.on('message', (m: string) => {
    if (m === 'report') port.postMessage({ type: 'report', delivered, open: ws.filter((w) => !w.closed).length, bytes: ws.reduce((n, w) => n + w.bytes, 0) });
    else if (m === 'arrivals') port.postMessage({ type: 'arrivals', rvs, times });
    else if (m === 'close') for (const w of ws) w.socket.destroy();
  });
  port.postMessage({ type: 'ready' });
}

if (!isMainThread) await runWorker();
