// A bound for figure 2, run by the bench only: Bonsai's own server and command line, with the registry's create of a
// pod sent over HTTP replaced by what the baseline does for one (one better-sqlite3 insert of the JSON text, the
// object answered as it came). Everything else a request passes stays: Fastify and its hooks, the host and origin
// checks, authentication, authorization, priority and fairness, request metrics, the write slices, decoding and
// checking the body, encoding the answer. A faithful create (defaults, validation, admission, managedFields, the
// store, the watch cache and its events) has to fit in what separates this server's rate from 0.6x the baseline's.
// Usage: node dist/bench/create-bound-server.js serve --port 0 ... (the arguments of `bonsai serve`); the inserts go
// to bound.db in the working directory (the bench's scratch directory).
import BetterSqlite3 from 'better-sqlite3';
import { Registry } from '../src/registry/registry.js';
import type { KObject } from '../src/machinery/types.js';

const db = new BetterSqlite3('bound.db');
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.exec('CREATE TABLE pods (namespace TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (namespace, name))');
const insert = db.prepare('INSERT INTO pods (namespace, name, value) VALUES (?, ?, ?)');

const create = Registry.prototype.create;
Registry.prototype.create = function boundCreate(this: Registry, def, namespace, obj, opts = {}): KObject | Promise<KObject> {
  // Only the API server's creates of pods (`owned`: the object was decoded from a request); the server's own writes
  // at start-up go the usual way.
  if (def.plural !== 'pods' || def.group !== '' || !opts.owned) return create.call(this, def, namespace, obj, opts);
  insert.run(namespace, obj.metadata?.name ?? '', JSON.stringify(obj));
  return obj;
};

await import('../src/cli/cli.js');
