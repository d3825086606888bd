// Composition root: open storage -> build registry -> bootstrap -> start HTTP -> load and start controllers,
// scheduler and simulated cluster.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SqliteStore } from './storage/sqlite-store.js';
import { Registry } from './registry/registry.js';
import { allResources } from './registry/resources/index.js';
import { bootstrap } from './registry/bootstrap.js';
import { buildServer } from './api/server.js';
import { openWatches } from './api/watch-stream.js';
import { ScaledClock, type Clock } from './util/clock.js';
import { createLogger, type Logger } from './util/logger.js';
import { selectControllers } from './controllers/selection.js';
import type { ClusterOptions } from './cluster/index.js';
import { Authorization, parseAuthorizationModes } from './auth/authorization.js';
import { AuditLog, parseAuditLevel, type AuditLevel } from './audit/audit-log.js';
import { componentAuditSink } from './audit/component-audit.js';

export interface BonsaiOptions {
  host?: string;
  port?: number;
  /** Data directory, or ':memory:'. */
  data?: string;
  logLevel?: string;
  synchronous?: 'NORMAL' | 'FULL';
  clockSpeed?: number;
  kubernetesVersion?: string;
  /** Compaction interval in ms (0 disables). */
  compactEveryMs?: number;
  /** The simulated nodes (default: 3 workers and a GPU node). */
  cluster?: ClusterOptions;
  /** Which controllers run, kube-controller-manager style: `['*']` (default), `['*', '-deployment']`, `['job']`. */
  controllers?: string[];
  /** `--authorization-mode`: `AlwaysAllow` (default), `RBAC`, or a comma list such as `RBAC,AlwaysAllow`. */
  authorizationMode?: string | string[];
  /** `--audit-log`: a file to append audit.k8s.io/v1 Event lines to (`-` for stdout); no audit log when unset. */
  auditLog?: string;
  /** `--audit-level`: None, Metadata (default), Request or RequestResponse. */
  auditLevel?: AuditLevel;
}

export interface Bonsai {
  url: string;
  port: number;
  registry: Registry;
  store: SqliteStore;
  app: FastifyInstance;
  clock: Clock;
  log: Logger;
  /** Stops or starts a simulated node's kubelet. */
  setNodeStopped(name: string, stopped: boolean): void;
  close(): Promise<void>;
}

export function databasePath(data: string): string {
  return data === ':memory:' ? ':memory:' : join(data, 'bonsai.db');
}

export async function startBonsai(opts: BonsaiOptions = {}): Promise<Bonsai> {
  const log = createLogger(opts.logLevel ?? 'warn');
  const which = selectControllers(opts.controllers);
  const modes = parseAuthorizationModes(opts.authorizationMode);
  const audit = opts.auditLog ? new AuditLog(opts.auditLog, parseAuditLevel(opts.auditLevel), log.child({ component: 'audit' })) : undefined;
  const clock = new ScaledClock(opts.clockSpeed ?? 1);
  const store = new SqliteStore({ path: databasePath(opts.data ?? '.bonsai'), synchronous: opts.synchronous });
  const registry = new Registry(store, allResources, clock, log.child({ component: 'registry' }));
  store.hub.onListenerError = (err, change) => log.error({ err, resource: change.resource, name: change.object.metadata.name }, 'a change listener failed');
  bootstrap(registry);
  const authorization = (registry.authorization = new Authorization(modes, store));
  if (audit?.enabled) registry.componentAudit = componentAuditSink(audit, authorization);
  const app = buildServer({ reg: registry, log: log.child({ component: 'api' }), kubernetesVersion: opts.kubernetesVersion, audit });
  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 6443 });
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port ?? 6443;
  const host = opts.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  // The API answers from here on; controllers, scheduler and kubelets load meanwhile (as kube-apiserver serves
  // before the controller manager is up) and, being level-triggered, pick up whatever was written in between.
  const [{ startControllers }, { startScheduler }, { startCluster }] = await Promise.all([
    import('./controllers/index.js'), import('./scheduler/index.js'), import('./cluster/index.js'),
  ]);
  const controllers = startControllers(registry, clock, log, which);
  const scheduler = startScheduler(registry, clock, log.child({ component: 'scheduler' }));
  const cluster = startCluster(registry, clock, log.child({ component: 'cluster' }), opts.cluster ?? {});
  const compactEvery = opts.compactEveryMs ?? 60_000;
  const compactTimer = compactEvery > 0 ? setInterval(() => store.compact(), compactEvery) : undefined;
  compactTimer?.unref();
  let closed = false;
  return {
    url, port, registry, store, app, clock, log,
    setNodeStopped: (name, stopped) => cluster.setNodeStopped(name, stopped),
    async close() {
      if (closed) return;
      closed = true;
      if (compactTimer) clearInterval(compactTimer);
      cluster.stop();
      scheduler.stop();
      controllers.stop();
      for (const w of [...openWatches]) w();
      await app.close();
      authorization.stop();
      await audit?.close();
      store.close();
    },
  };
}
