// Parses one YAML file's documents off the main thread (a CRD file of 400 kB takes the yaml library ~200 ms, which
// would otherwise stall requests right after start-up). Receives the text as workerData, posts back the documents.
import { parentPort, workerData } from 'node:worker_threads';
import { yaml } from '../util/yaml.js';
import { workerReply } from '../util/worker-task.js';

const maxDocuments = 64;

function parse(text: string): unknown[] {
  const docs = yaml().parseAllDocuments(text);
  if (docs.length > maxDocuments) throw new Error(`more than ${maxDocuments} documents`);
  const out: unknown[] = [];
  for (const doc of docs) {
    if (doc.errors.length) throw new Error(doc.errors[0].message);
    out.push(doc.toJS({ maxAliasCount: 100 }));
  }
  return out;
}

void workerReply(() => parse(String((workerData as { text?: unknown } | undefined)?.text ?? ''))).then((reply) => parentPort?.postMessage(reply));
