// Baseline for the benchmark: a bare Fastify server whose pod "create" is one better-sqlite3 insert
// (WAL, synchronous=NORMAL, temp file). It also has the cheapest possible get-one and list routes so the
// read figures have a floor to compare against. Usage: node dist/bench/baseline-server.js --port 0 --data DIR
// Prints `baseline serving at http://HOST:PORT` once it listens.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Fastify from 'fastify';
import BetterSqlite3 from 'better-sqlite3';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const port = Number(arg('port', '0'));
const dataDir = arg('data', '.bench-baseline');
mkdirSync(dataDir, { recursive: true });

const db = new BetterSqlite3(join(dataDir, 'baseline.db'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE IF NOT EXISTS pods (namespace TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, name))');
const insert = db.prepare('INSERT INTO pods (namespace, name, value) VALUES (?, ?, ?)');
const selectOne = db.prepare('SELECT value FROM pods WHERE namespace = ? AND name = ?').pluck();
const selectAll = db.prepare('SELECT value FROM pods WHERE namespace = ? ORDER BY name').pluck();

interface PodParams { ns: string; name?: string }
interface PodBody { metadata?: { name?: string } }

const app = Fastify({ logger: false, forceCloseConnections: true });
app.get('/healthz', async (_req, reply) => reply.type('text/plain').send('ok'));

app.post<{ Params: PodParams; Body: PodBody }>('/api/v1/namespaces/:ns/pods', async (req, reply) => {
  const name = req.body?.metadata?.name;
  if (!name) return reply.code(422).send({ message: 'metadata.name is required' });
  try {
    insert.run(req.params.ns, name, JSON.stringify(req.body));
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return reply.code(409).send({ message: 'exists' });
    throw e;
  }
  return reply.code(201).send(req.body);
});

app.get<{ Params: PodParams }>('/api/v1/namespaces/:ns/pods/:name', async (req, reply) => {
  const value = selectOne.get(req.params.ns, req.params.name) as string | undefined;
  if (value === undefined) return reply.code(404).send({ message: 'not found' });
  return reply.type('application/json').send(value);
});

app.get<{ Params: PodParams }>('/api/v1/namespaces/:ns/pods', async (req, reply) => {
  const values = selectAll.all(req.params.ns) as string[];
  return reply.type('application/json').send(`{"apiVersion":"v1","kind":"PodList","metadata":{},"items":[${values.join(',')}]}`);
});

await app.listen({ host: '127.0.0.1', port });
const addr = app.server.address();
const actual = typeof addr === 'object' && addr ? addr.port : port;
process.stdout.write(`baseline serving at http://127.0.0.1:${actual}\n`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  app.close().then(
    () => { db.close(); process.exit(0); },
    () => process.exit(1),
  );
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
