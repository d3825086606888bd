// Generates the cluster CA off the main thread: @peculiar/x509 takes 150 to 250 ms to load, all of it synchronous, and
// a server with no CA yet (every in-memory server) needs one right after start-up, while requests come in. Receives
// the common name as workerData, posts back the PEMs (or an error).
import { parentPort, workerData } from 'node:worker_threads';
import { generateCa } from './cluster-ca.js';

const commonName = String((workerData as { commonName?: unknown } | undefined)?.commonName ?? 'bonsai-ca');
generateCa(commonName).then(
  (pems) => parentPort?.postMessage({ pems }),
  (e: unknown) => parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) }),
);
