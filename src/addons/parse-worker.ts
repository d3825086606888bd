// Parses one YAML file's documents off the main thread (a CRD file of 400 kB takes the yaml library ~200 ms, which
// would otherwise stall requests right after start-up). Receives the text as workerData, posts back the documents.
import { parentPort, workerData } from 'node:worker_threads';
import { yaml } from '../util/yaml.js';

const maxDocuments = 64;

function parse(text: string): { docs?: unknown[]; error?: string } {
  const docs = yaml().parseAllDocuments(text);
  if (docs.length > maxDocuments) return { error: `more than ${maxDocuments} documents` };
  const out: unknown[] = [];
  for (const doc of docs) {
    if (doc.errors.length) return { error: doc.errors[0].message };
    out.push(doc.toJS({ maxAliasCount: 100 }));
  }
  return { docs: out };
}

try {
  parentPort?.postMessage(parse(String((workerData as { text?: unknown } | undefined)?.text ?? '')));
} catch (e) {
  parentPort?.postMessage({ error: e instanceof Error ? e.message : String(e) });
}
