// Generates the cluster CA off the main thread: @peculiar/x509 takes 150 to 250 ms to load, all of it synchronous, and
// a server with no CA yet (every in-memory server) needs one right after start-up, while requests come in. Receives
// the common name as workerData, posts back the PEMs (see util/worker-task.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { workerReply } from '../../util/worker-task.js';
import { generateCa } from './cluster-ca.js';

const commonName = String((workerData as { commonName?: unknown } | undefined)?.commonName ?? 'bonsai-ca');
void workerReply(() => generateCa(commonName)).then((reply) => parentPort?.postMessage(reply));
