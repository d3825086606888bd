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
import { HostAllowList } from './api/host-check.js';
import { closeGracefully, defaultShutdownGraceMs } from './api/graceful-close.js';
import { ScaledClock, type Clock } from './util/clock.js';
import { createLogger, type Logger } from './util/logger.js';
import { selectControllers } from './controllers/selection.js';
import type { ClusterOptions } from './cluster/index.js';

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
  /** Host header names served besides IP addresses, localhost and the listen host (`--allowed-host`). */
  allowedHosts?: string[];
  /** On close, how long requests in flight may take to finish (default 5 s). */
  shutdownGraceMs?: number;
}

export interface Bonsai {
  url: string;
  port: number;
  registry: Registry;
  store: SqliteStore;
  app: FastifyInstance;
  /** Host names the server answers for; add names clients use (e.g. TLS SANs) with `hosts.allow(name)`. */
  hosts: HostAllowList;
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
  const clock = new ScaledClock(opts.clockSpeed ?? 1);
  const store = new SqliteStore({ path: databasePath(opts.data ?? '.bonsai'), synchronous: opts.synchronous });
  const registry = new Registry(store, allResources, clock, log.child({ component: 'registry' }));
  store.hub.onListenerError = (err, change) => log.error({ err, resource: change.resource, name: change.object.metadata.name }, 'a change listener failed');
  bootstrap(registry);
  const hosts = new HostAllowList([...(opts.allowedHosts ?? []), opts.host ?? '127.0.0.1']);
  const app = buildServer({ reg: registry, log: log.child({ component: 'api' }), kubernetesVersion: opts.kubernetesVersion, hosts });
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
    url, port, registry, store, app, hosts, clock, log,
    setNodeStopped: (name, stopped) => cluster.setNodeStopped(name, stopped),
    async close() {
      if (closed) return;
      closed = true;
      if (compactTimer) clearInterval(compactTimer);
      cluster.stop();
      scheduler.stop();
      controllers.stop();
      await closeGracefully(app, () => {
        for (const w of [...openWatches]) w();
      }, opts.shutdownGraceMs ?? defaultShutdownGraceMs);
      store.close();
    },
  };
}
