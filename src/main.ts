// Composition root: open storage -> build registry -> bootstrap -> start HTTP -> load and start controllers,
// scheduler and simulated cluster.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SqliteStore } from './storage/sqlite-store.js';
import type { Storage } from './storage/storage.js';
import { Registry } from './registry/registry.js';
import { allResources } from './registry/resources/index.js';
import { storageKey } from './registry/resource.js';
import { bootstrap } from './registry/bootstrap.js';
import { configMapMetricsSource } from './metrics-apis/configmap-source.js';
import { apfServerLimit, buildServer } from './api/server.js';
import { openWatchesOf } from './api/watch-stream.js';
import { HostAllowList } from './api/host-check.js';
import { compileOriginPatterns } from './api/origin-check.js';
import { closeGracefully, defaultShutdownGraceMs } from './api/graceful-close.js';
import { maxClockSpeed, ScaledClock, VirtualClock, type ControllableClock } from './util/clock.js';
import { createLogger, type Logger } from './util/logger.js';
import { selectControllers } from './controllers/selection.js';
import { selectAddons } from './addons/index.js';
import { nextTurn } from './util/next-turn.js';
import type { ClusterHandle } from './cluster/index.js';
import { Authorization, parseAuthorizationModes } from './auth/authorization.js';
import { AuditLog, parseAuditLevel } from './audit/audit-log.js';
import { componentAuditSink } from './audit/component-audit.js';
import { attachSecurity, Security } from './auth/security.js';
import { servingNames, type TlsMaterial } from './auth/pki/pki.js';
import { exposureProblem } from './auth/exposure.js';
import { preparePrivateDatabase } from './util/private-files.js';
import { startApiExtensions } from './apiextensions/index.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from './admission/webhook/index.js';
import { loadCel, validatingAdmissionPolicyPlugin } from './admission/policy/index.js';
import { startPolicyStatus } from './admission/policy/status-controller.js';
import { createFixture, withFixture, type FixtureHelpers } from './fixture/handle.js';
import { parseKubeletSelection, nodeFilterOf, type KubeletSelection } from './leader/kubelet-selection.js';
import type { LeaderElector } from './leader/elector.js';
import { simulatedWebhookModes } from './admission/webhook/service-forward.js';
import { checkBonsaiOptions } from './options-check.js';
import type { AdminCredentials, BonsaiOptions } from './bonsai-options.js';
import { installCommandRunner, setExecBudget } from './api/streaming/runtime.js';
import { installInClusterApi } from './api/in-cluster.js';

export type { AdminCredentials, BonsaiOptions };

export interface Bonsai extends FixtureHelpers {
  url: string;
  /** The web dashboard's address (absent with `ui: false`). */
  uiUrl?: string;
  port: number;
  registry: Registry;
  store: Storage;
  app: FastifyInstance;
  /** Host names the server answers for; add names clients use (e.g. TLS SANs) with `hosts.allow(name)`. */
  hosts: HostAllowList;
  /** Simulated time: read it, and pause, resume, step or advance it (`await bonsai.clock.advance(ms)`). */
  clock: ControllableClock;
  log: Logger;
  security: Security;
  credentials: AdminCredentials;
  /**
   * Settles once the selected add-ons have installed their CRDs and started (failures are logged): in the process that
   * runs them, whenever it wins their election (one that never leads them waits on).
   */
  addonsReady: Promise<void>;
  /** Stops or starts a simulated node's kubelet. */
  setNodeStopped(name: string, stopped: boolean): Promise<void>;
  /** Leader election: this process's identity and the Leases (kube-system) it holds right now. */
  election: { identity: string; leading(): string[]; electors: readonly LeaderElector[] };
  close(): Promise<void>;
}

/** SQLite in `data` (the default), or etcd for `--storage etcd://…` (its client loads only then). */
async function openStorage(opts: BonsaiOptions, data: string, now: () => number, log: Logger): Promise<Storage> {
  if (opts.storage) {
    const { EtcdStore, parseEtcdUrl } = await import('./storage/etcd/etcd-store.js');
    const storeLog = log.child({ component: 'storage' });
    return EtcdStore.open({ endpoints: parseEtcdUrl(opts.storage), builtins: allResources.map(storageKey), now, log: (m) => storeLog.warn(m) });
  }
  if (data !== ':memory:') preparePrivateDatabase(databasePath(data));
  return new SqliteStore({ path: databasePath(data), synchronous: opts.synchronous, now, commitThread: 'later' });
}

export function databasePath(data: string): string {
  return data === ':memory:' ? ':memory:' : join(data, 'bonsai.db');
}

export async function startBonsai(options: BonsaiOptions = {}): Promise<Bonsai> {

  const opts = checkBonsaiOptions(options);
  const host = opts.host ?? '127.0.0.1';
  const data = opts.data ?? '.bonsai';
  const modes = parseAuthorizationModes(opts.authorizationMode);
  const exposed = exposureProblem({ host, tls: !!opts.tls, anonymousAuth: opts.anonymousAuth ?? true, authorizationMode: modes.join(',') });
  if (exposed && !opts.insecure) throw new Error(exposed);
  const corsAllowedOrigins = await compileOriginPatterns(opts.corsAllowedOrigins ?? []);
  if (opts.enablePriorityAndFairness !== false) apfServerLimit({ maxRequestsInflight: opts.maxRequestsInflight, maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight });
  const log = createLogger(opts.logLevel ?? 'warn');
  const which = selectControllers(opts.controllers);
  const addonNames = selectAddons(opts.addons);
  let kubeletSelection: KubeletSelection;
  try {
    kubeletSelection = parseKubeletSelection(opts.kubelets);
  } catch (e) {
    throw new Error(`kubelets: ${e instanceof Error ? e.message : String(e)}`);
  }
  const audit = opts.auditLog ? new AuditLog(opts.auditLog, parseAuditLevel(opts.auditLevel), log.child({ component: 'audit' })) : undefined;
  if (opts.clock !== undefined && opts.clock !== 'scaled' && opts.clock !== 'virtual') throw new Error(`clock must be scaled or virtual, not ${String(opts.clock)}`);
  if (opts.clockSpeed !== undefined && !(opts.clockSpeed >= 0 && opts.clockSpeed <= maxClockSpeed)) throw new Error(`clock speed must be a number from 0 to ${maxClockSpeed}`);
  if (opts.eventTtlMs !== undefined && !(opts.eventTtlMs >= 0)) throw new Error('the event TTL must be a number of milliseconds, 0 or more');
  const simulatedWebhooks = opts.simulatedWebhooks ?? 'allow';
  if (!simulatedWebhookModes.includes(simulatedWebhooks)) throw new Error(`simulated webhooks must be ${simulatedWebhookModes.join(' or ')}, not ${String(simulatedWebhooks)}`);
  const clock: ControllableClock = opts.clock === 'virtual' ? new VirtualClock({ paused: opts.clockSpeed === 0 }) : new ScaledClock(opts.clockSpeed ?? 1);
  const store = await openStorage(opts, data, () => clock.nowMs(), log);
  // Simulated time waits for writes still on their way to being stored and published, as for any work in progress.
  clock.idle.add(() => store.hasPending() || store.writesInFlight?.() === true);

  const registry = new Registry(store, allResources, clock, log.child({ component: 'registry' }));
  registry.simulatedWebhooks = simulatedWebhooks;
  if (opts.execBudget) setExecBudget(registry, opts.execBudget);
  installCommandRunner(registry);
  let security: Security;
  try {
    security = new Security(registry, { data, anonymousAuth: opts.anonymousAuth, tokenAuthFile: opts.tokenAuthFile });
  } catch (e) {
    store.close();
    throw e;
  }
  attachSecurity(registry, security);

  store.hub.onListenerError = (err, change) => log.error({ err, resource: change.resource, name: change.object.metadata.name }, 'a change listener failed');
  // Admission after the built-ins, in kube-apiserver's order: mutating webhooks, then validating policies and webhooks.
  registry.addAdmission(mutatingWebhookPlugin(), validatingAdmissionPolicyPlugin(), validatingWebhookPlugin());
  const booted = bootstrap(registry);
  if (booted) await booted;

  // The simulated external metrics source (ConfigMap bonsai-external-metrics), first of the sources.
  registry.addExternalMetrics(configMapMetricsSource(registry));
  const apiExtensions = startApiExtensions(registry, clock, log.child({ component: 'apiextensions' }));
  const policyStatus = startPolicyStatus(registry, log.child({ component: 'admission' }));
  const authorization = (registry.authorization = new Authorization(modes, store));

  if (audit?.enabled) registry.componentAudit = componentAuditSink(audit, authorization);
  if (exposed) {
    log.warn({ host, problem: exposed }, 'serving on a non-loopback address anyone who reaches it could take over (--insecure)');
  }
  if (!opts.tls && modes.includes('RBAC')) {
    // client-go reads a kubeconfig's credentials only for https servers: kubectl would be system:anonymous.
    log.warn('RBAC without --tls: kubectl sends no credentials to an http:// server, so it acts as system:anonymous');
  }
  const tls: TlsMaterial | undefined = opts.tls ? await security.pki.tls(servingNames(host, opts.tlsSans ?? [])) : undefined;
  const hosts = new HostAllowList([...(opts.allowedHosts ?? []), host, ...(opts.tlsSans ?? [])]);
  const app = buildServer({
    reg: registry, log: log.child({ component: 'api' }), kubernetesVersion: opts.kubernetesVersion, authenticator: security.authenticator, audit, hosts, corsAllowedOrigins,
    tls: tls && { key: tls.servingKey, cert: tls.servingCert, ca: tls.ca.certPem }, ui: opts.ui,
    inflight: { maxRequestsInflight: opts.maxRequestsInflight, maxMutatingRequestsInflight: opts.maxMutatingRequestsInflight }, priorityAndFairness: opts.enablePriorityAndFairness,
    maxListBytesInflight: opts.listLimits?.maxBytesInflight, listStallMs: opts.listLimits?.stallMs,
  });
  installInClusterApi(registry, app);

  await app.listen({ host, port: opts.port ?? 6443 });

  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port ?? 6443;
  // A wildcard address is where Bonsai listens, not where to reach it: URL and kubeconfig name loopback.
  const reachAt = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const url = `${tls ? 'https' : 'http'}://${reachAt.includes(':') ? `[${reachAt}]` : reachAt}:${port}`;
  const credentials: AdminCredentials = tls
    ? { token: security.adminToken, ca: tls.ca.certPem, clientCert: tls.adminCert, clientKey: tls.adminKey }
    : { token: security.adminToken };
  const fixture = createFixture(registry, { url, data, kubeconfig: opts.kubeconfig, credentials });
  const uiUrl = opts.ui === false ? undefined : `${url}/ui/`;
  opts.onListening?.({ url, port, credentials, uiUrl, get kubeconfigPath() { return fixture.file.path; } });
  // Objects loaded at start-up are parsed in the background, a page at a time (reads parse what they need at once).
  void store.warm?.().catch((err: unknown) => log.error({ err }, 'parsing the stored objects failed'));
  // Stored policies need CEL from the start (a new policy loads it when it is written: its def's `load`).
  if (store.list('admissionregistration.k8s.io/validatingadmissionpolicies').length) void loadCel().catch((err: unknown) => log.warn({ err }, 'the CEL engine did not load'));
  // The API answers from here on; controllers, scheduler and kubelets load meanwhile (as kube-apiserver serves
  // before the controller manager is up) and, being level-triggered, pick up whatever was written in between.
  // Loading and starting them yields to I/O between steps, so a request arriving meanwhile waits for one step only.
  // Each module is compiled in a step of its own (the controllers' alone take milliseconds), so a request that
  // arrives meanwhile is answered after one step rather than after all of them.
  const step = async <T>(load: () => Promise<T>): Promise<T> => {
    await nextTurn();
    return load();
  };
  const { clientFor } = await step(() => import('./client/client.js'));
  const leader = await step(() => import('./leader/index.js'));
  const ids = await step(() => import('./auth/identities.js'));
  const { defaultEventTtlMs, startEventTtl } = await step(() => import('./registry/event-ttl.js'));
  const { loadClusterConfig } = await step(() => import('./cluster/config.js'));
  const { startScheduler } = await step(() => import('./scheduler/index.js'));
  const { startCluster, markNodeStopped } = await step(() => import('./cluster/index.js'));
  const { startAddons } = await step(() => import('./addons/index.js'));
  const { startControllers } = await step(() => import('./controllers/index.js'));
  // Controllers, scheduler, add-ons (and by default the simulated kubelets) run only while this process holds their
  // Lease. A local SQLite store is this process's alone: the Leases are taken at once, before start() returns.
  const root = clientFor(registry);
  // kube-apiserver's API Priority and Fairness configuration (the built-in FlowSchemas and priority levels, their status).
  const apfConfig = (await import('./flowcontrol/config-controller.js')).startFlowcontrolConfig(root, clock, log.child({ component: 'apf-config' }));
  const identity = opts.identity ?? leader.leaderIdentity();
  const electionLog = log.child({ component: 'leader-election' });
  const elect = <T extends { stop(): void }>(name: string, client: typeof root, run: () => T, onRunning?: (r: T | undefined) => void) =>
    leader.whileLeading(client, { name, identity, exclusive: store.exclusive, log: electionLog }, run, onRunning);
  const clusterConfig = loadClusterConfig(opts.cluster ?? {});
  const nodeFilter = nodeFilterOf(kubeletSelection);
  let cluster: ClusterHandle | undefined;
  const startSimulation = () => startCluster(root, clock, log.child({ component: 'cluster' }), { ...opts.cluster, config: clusterConfig, nodeFilter });
  // Leadership may be won after start returns (on etcd the Lease is written asynchronously): the promise settles when
  // this process's add-ons are ready, not when an election has yet to start them.
  let addonsStarted: () => void = () => undefined;
  const addonsReady = opts.apiOnly || addonNames.length === 0 ? Promise.resolve() : new Promise<void>((resolve) => (addonsStarted = resolve));
  // An API-only replica (--api-only) serves the shared store and runs nothing else, not even a candidate.
  const electors = opts.apiOnly ? [] : [
    elect(leader.leaseNames.controllerManager, root.as(ids.controllerManagerIdentity.user, ids.controllerManagerIdentity.component), () => {
      // Expired Events are removed by one process, the one running the controllers.
      const controllers = startControllers(root, clock, log, which);
      const stopEventTtl = startEventTtl(registry, clock, opts.eventTtlMs ?? defaultEventTtlMs, log.child({ component: 'event-ttl' }));
      return { stop: () => (stopEventTtl(), controllers.stop()) };
    }),
    elect(leader.leaseNames.scheduler, root.as(ids.schedulerIdentity.user, ids.schedulerIdentity.component), () => startScheduler(root, clock, log.child({ component: 'scheduler' }))),
    ...(kubeletSelection.kind === 'leader' ? [elect(leader.leaseNames.kubelets, root, startSimulation, (c) => (cluster = c))] : []),
    // Add-ons install their CRDs and start in the background (CRD validation loads the schema engines).
    elect(leader.leaseNames.addons, root, () => startAddons(root, clock, log.child({ component: 'addons' }), addonNames, clusterConfig.addons), (a) => {
      if (a) void a.ready.then(addonsStarted);
    }),
  ];
  // Sharded kubelets (a shard or a selector) run whoever leads: the processes split the nodes between them.
  if (!opts.apiOnly && (kubeletSelection.kind === 'shard' || kubeletSelection.kind === 'selector')) cluster = startSimulation();
  for (const e of electors) {
    e.start();
    await nextTurn();
  }
  // The store's own background work (SQLite's commit thread) starts once the rest has loaded.
  store.startBackground?.();
  // The streaming code loads in the background too, rather than on the first exec while other requests wait.
  void import('./api/streaming/index.js').then(async (m) => {
    await nextTurn();
    await m.preloadStreaming(nextTurn);
  }).catch((err: unknown) => log.warn({ err }, 'preloading the exec and port-forward code failed'));
  const compactEvery = opts.compactEveryMs ?? 60_000;
  const compactTimer = compactEvery > 0 ? setInterval(() => store.compact(), compactEvery) : undefined;
  compactTimer?.unref();
  let closed = false;
  return withFixture<Omit<Bonsai, keyof FixtureHelpers>>({
    url, uiUrl, port, registry, store, app, hosts, clock, log, security, credentials,
    get addonsReady() {
      return addonsReady;
    },
    // A node this process does not simulate: its annotation tells the process that does.
    setNodeStopped: (name, stopped) => (cluster ? cluster.setNodeStopped(name, stopped) : markNodeStopped(root, name, stopped)),
    election: { identity, electors, leading: () => electors.filter((e) => e.isLeader()).map((e) => e.name) },
    async close() {
      if (closed) return;
      closed = true;
      fixture.stop();
      if (compactTimer) clearInterval(compactTimer);
      // Stopping an elector stops its component, then releases its Lease (a survivor takes it over at once).
      for (const e of [...electors].reverse()) e.stop();
      if (kubeletSelection.kind !== 'leader') cluster?.stop();
      apiExtensions.stop();
      policyStatus.stop();
      apfConfig.stop();
      clock.stop();
      await closeGracefully(app, () => {
        for (const w of [...openWatchesOf(registry)]) w();
      }, opts.shutdownGraceMs ?? defaultShutdownGraceMs);
      authorization.stop();
      await audit?.close();
      store.close();
    },
  }, fixture);
}
