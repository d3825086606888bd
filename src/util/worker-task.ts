// One task on a worker thread: a compiled module under src/ receives `workerData` and posts one message back,
// `{ value }` or `{ error }`. For work that would hold the event loop (parsing a large file, loading a heavy library);
// when no worker can start, the task runs inline.
import { Worker } from 'node:worker_threads';
import { compiledModuleUrl } from './paths.js';

export type WorkerReply<T> = { value: T } | { error: string };

export function runWorkerTask<T>(pathUnderSrc: string, workerData: unknown, inline: () => T | Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    let worker: Worker;
    try {
      worker = new Worker(compiledModuleUrl(pathUnderSrc), { workerData });
    } catch {
      Promise.resolve().then(inline).then(resolve, reject);
      return;
    }
    worker.once('message', (m: WorkerReply<T>) => ('value' in m ? resolve(m.value) : reject(new Error(m.error))));
    worker.once('error', reject);
    worker.once('exit', (code) => code !== 0 && reject(new Error(`${pathUnderSrc} exited with ${code}`)));
  });
}

/** The reply of a worker's task: its value, or the message of what it threw. */
export async function workerReply<T>(task: () => T | Promise<T>): Promise<WorkerReply<T>> {
  try {
    return { value: await task() };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}
