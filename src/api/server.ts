// The Fastify application: content handling, errors as Status, and the route table.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { ApiError, methodNotAllowed, tooLarge } from '../machinery/errors.js';
import { StorageError } from '../storage/errors.js';
import type { Registry } from '../registry/registry.js';
import type { Logger } from '../util/logger.js';
import { apiResourceList, serveGroup, serveRootDiscovery } from './discovery.js';
import { handleMetrics, metricsGroup, metricsVersion } from './metrics.js';
import { handleMetricsAdapter } from '../metrics-apis/http.js';
import { isAdapterGroup } from '../metrics-apis/discovery.js';
import { registerOpenApi } from './openapi-routes.js';
import { parseRequestPath } from './request-info.js';
import { objectRead, readsCommittedObject } from './committed-read.js';
import { groupVersionOf, notFoundFor, PageNotFound, sendPageNotFound, sendServiceUnavailable, ServiceUnavailable } from './not-found.js';
import { installJsonFraming } from './json-framing.js';
import { HostAllowList, installHostCheck } from './host-check.js';
import { installOriginCheck, type OriginPattern } from './origin-check.js';
import { installBodyReader, keepsConnection, maxBodyBytes } from './body-reader.js';
import { installGracefulClose } from './graceful-close.js';
import { installUpgrade } from './streaming/upgrade.js';
import { installRequestMetrics } from './request-metrics.js';
import { handleResource } from './resource-handler.js';
import { defaultMaxMutatingRequestsInflight, defaultMaxRequestsInflight, installInflightLimits, type InflightLimits } from './inflight.js';
import { actingRegistry, installPriorityAndFairness } from '../flowcontrol/dispatch/apf-filter.js';
import { registerDebugDumps } from '../flowcontrol/dispatch/debug-dumps.js';
import { ListBudget, setListBudget } from './list-stream.js';
import { versionInfo } from './version.js';
import { isUiPath, registerUiRoutes } from './ui-routes.js';
import type { UserInfo } from '../auth/types.js';
import type { Authenticator } from '../auth/authn/authenticator.js';
import { securityOf } from '../auth/security.js';
import '../auth/fastify-request.js';
import { authorizationOf } from '../auth/authorization.js';
import { installRequestChain } from '../auth/request-chain.js';
import type { AuditLog } from '../audit/audit-log.js';
import { TurnGate } from '../util/turn-gate.js';
import { registerBonsaiRoutes } from './bonsai-routes/index.js';
import { registerClockRoutes, trackRequestsForClock } from './clock-routes.js';

export { maxBodyBytes } from './body-reader.js';

/** How long one turn of the event loop runs queued writes before it polls for I/O again. */
const writeSliceMs = 1;

export interface ServerOptions {
  reg: Registry;
  log: Logger;
  /** Reported by /version; kubectl's dispatcher picks its binary from the minor. */
  kubernetesVersion?: string;
  /** Where HTTP requests are audited (`--audit-log`). */
  audit?: AuditLog;
  /** Who requests come from (default: the registry's security, in-memory unless configured). */
  authenticator?: Authenticator;
  /** Serve TLS with this key and certificate; client certificates are asked for and verified against `ca`. */
  tls?: { key: string; cert: string; ca: string };
  /** Host header names served besides IP literals and localhost (DNS rebinding defence). */
  hosts?: HostAllowList;
  /** `--cors-allowed-origins`, compiled: pages from these origins may call the API (cross-origin writes are refused otherwise). */
  corsAllowedOrigins?: readonly OriginPattern[];
  /** Serve the web dashboard under /ui/ (default true; `--no-ui` turns it off). */
  ui?: boolean;
  /** `--max-requests-inflight` and `--max-mutating-requests-inflight` (defaults 400 and 200; 0 disables). */
  inflight?: InflightLimits;
  /**
   * `--enable-priority-and-fairness` (default true): API Priority and Fairness shares the seats of both in-flight
   * limits among the priority levels; false limits requests with the max-in-flight filter instead.
   */
  priorityAndFairness?: boolean;
  /** The bytes streamed lists in flight may hold together (snapshots and buffers; default 256 MiB; 0: unbounded). */
  maxListBytesInflight?: number;
  /** How long a list's client may take no data before it is cut off (default 60 s). */
  listStallMs?: number;
}

function statusFor(err: unknown, log: Logger): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { code?: string; statusCode?: number; message?: string };
  if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return tooLarge();
  // The connection went away while the body was arriving (the client's doing, or a shutdown's grace running out).
  if (e.code === 'ECONNRESET' && e.message === 'aborted') return new ApiError(400, 'BadRequest', 'the request body was cut short: the connection closed');
  if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.statusCode === 415) return new ApiError(415, 'UnsupportedMediaType', e.message ?? 'unsupported media type');
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) return new ApiError(e.statusCode, e.statusCode === 404 ? 'NotFound' : 'BadRequest', e.message ?? 'bad request');
  log.error({ err }, 'unexpected error');
  return new ApiError(500, 'InternalError', `Internal error occurred: ${e.message ?? String(err)}`);
}

/** The seats APF shares among priority levels: both in-flight limits together, as upstream (600 by default). */
export function apfServerLimit(limits: InflightLimits = {}): number {
  const n = (limits.maxRequestsInflight ?? defaultMaxRequestsInflight) + (limits.maxMutatingRequestsInflight ?? defaultMaxMutatingRequestsInflight);
  if (!(n > 0)) throw new Error('max-requests-inflight plus max-mutating-requests-inflight must be positive when enable-priority-and-fairness is true');
  return n;
}

function noRouteSchemas(): never {
  throw new Error('Bonsai routes declare no Fastify schemas');
}

export function buildServer(opts: ServerOptions): FastifyInstance {
  const { reg, log } = opts;
  const app = Fastify({
    ...(opts.tls ? { https: { key: opts.tls.key, cert: opts.tls.cert, ca: opts.tls.ca, requestCert: true, rejectUnauthorized: false } } : {}),
    bodyLimit: maxBodyBytes, logger: false, forceCloseConnections: 'idle', return503OnClosing: false, routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    // No route declares a Fastify schema (the registry validates objects), so Fastify's ajv and
    // fast-json-stringify compilers are never needed; plain ones spare ~30 ms of start-up loading them.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
    // Errors Fastify raises before routing (a malformed %-escape in the path) are Status objects too.
    frameworkErrors: (err, _req, reply) => {
      const status = statusFor(err, log);
      // No onSend hook runs here: framed as a Buffer, the body and its type go out as written.
      void (reply as FastifyReply).code(status.code).header('Content-Type', 'application/json').send(Buffer.from(`${JSON.stringify(status.toStatus())}\n`));
    },
  });
  installBodyReader(app);

  installHostCheck(app, opts.hosts ?? new HostAllowList());
  // Web pages from other origins may not write or open streams (CSRF); allowed origins get CORS headers.
  installOriginCheck(app, opts.corsAllowedOrigins);
  const requestMetrics = installRequestMetrics(app, reg);
  // Requests being answered hold the virtual clock (counted before authentication, so refused ones count too).
  trackRequestsForClock(app, reg);
  // The request chain, in upstream's order: authentication, then authorization, before the body is read.
  // `authenticateRequest` throws the 401 Status for an invalid credential (or none, with anonymous requests off).
  // Then audit, impersonation and authorization (AlwaysAllow unless the registry was given another).
  app.decorateRequest('user', null as unknown as UserInfo);
  installRequestChain(app, {
    authenticator: opts.authenticator ?? securityOf(reg).authenticator,
    authorization: authorizationOf(reg), audit: opts.audit,
    // The dashboard's bundle is public code holding no data; what it shows, it asks the API for as the user.
    isPublic: opts.ui === false ? undefined : isUiPath,
  });
  // API Priority and Fairness (or upstream's max-in-flight filter) runs once the user is known; lists in flight
  // also hold a memory budget.
  if (opts.priorityAndFairness === false) installInflightLimits(app, opts.inflight);
  else {
    const fc = installPriorityAndFairness(app, reg, apfServerLimit(opts.inflight));
    requestMetrics.add(...fc.metrics.exposed());
    registerDebugDumps(app, fc);
  }
  setListBudget(app, new ListBudget(opts.maxListBytesInflight, opts.listStallMs));

  // Group commit: writes are committed together after the current turn; no answer to a write leaves before its data
  // is saved. A read waited before it read (see dispatchAsync), so its answer holds committed data only.
  app.addHook('onSend', (req, _reply, payload, done) => {
    if (req.method === 'GET' || !reg.store.hasPending()) return done(null, payload);
    void reg.store.committed().then(() => done(null, payload));
  });
  app.setErrorHandler((err, _req, reply) => {
    if (reply.sent || reply.raw.headersSent) return;
    if (err instanceof PageNotFound) return sendPageNotFound(reply);
    if (err instanceof ServiceUnavailable) return sendServiceUnavailable(reply);
    if (keepsConnection(err)) reply.removeHeader('connection');
    const status = statusFor(err, log);
    reply.code(status.code).header('Content-Type', 'application/json').send(status.toStatus());
  });
  app.setNotFoundHandler((_req, reply) => sendPageNotFound(reply));
  installJsonFraming(app);
  installGracefulClose(app, !!opts.tls);

  const version = versionInfo(opts.kubernetesVersion);
  // Upstream writes /version indented, with no trailing newline, and health checks as Go's plain text.
  const versionJson = JSON.stringify(version, null, 2);
  app.get('/version', async (_req, reply) => reply.type('application/json').send(versionJson));
  for (const p of ['/healthz', '/livez', '/readyz']) {
    app.get(p, async (_req, reply) => reply.header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send('ok'));
  }
  registerOpenApi(app, reg);
  if (opts.ui !== false) registerUiRoutes(app);
  registerBonsaiRoutes(app, reg);
  registerClockRoutes(app, reg);

  const address = () => {
    const a = app.server.address();
    return typeof a === 'object' && a ? `${a.address}:${a.port}` : '127.0.0.1';
  };
  app.get('/api', async (req, reply) => {
    serveRootDiscovery(reg, true, req, reply, address());
    return reply;
  });
  app.get('/apis', async (req, reply) => {
    serveRootDiscovery(reg, false, req, reply, address());
    return reply;
  });
  // Handlers send (or hijack) the reply themselves; returning it tells Fastify not to send again.
  const dispatchAsync = async (req: FastifyRequest, reply: FastifyReply) => {
    const info = parseRequestPath(req.url);
    if (!info) {
      const gv = groupVersionOf(req.url);
      throw notFoundFor(reg, gv.group, gv.version);
    }
    if (info.discovery) {
      if (req.method !== 'GET') throw methodNotAllowed();
      if (!info.version) serveGroup(reg, info.group, reply);
      else reply.send(apiResourceList(reg, info.group, info.version));
      return reply;
    }
    // custom.metrics.k8s.io and external.metrics.k8s.io: the simulated metrics adapter parses its own paths.
    if (isAdapterGroup(info.group)) {
      if (req.method === 'GET' && reg.store.hasPending()) await reg.store.committed();
      handleMetricsAdapter(reg.as(req.user), info.group, info.version, req, reply);
      return reply;
    }
    if (info.group === metricsGroup ? info.version !== metricsVersion : !reg.find(info.group, info.version, info.resource ?? '')) throw notFoundFor(reg, info.group, info.version);
    // Reads (and the initial state of watches) see only committed writes; on a shared store (etcd), every write
    // acknowledged anywhere before the request.
    if (req.method === 'GET') {
      await reg.store.consistentRead?.(objectRead(reg, info, req.url))?.catch((e: unknown) => {
        throw e instanceof StorageError ? new ApiError(504, 'Timeout', e.message) : e;
      });
    }
    if (req.method === 'GET' && reg.store.hasPending() && !readsCommittedObject(reg, info, req.url)) await reg.store.committed();
    const acting = actingRegistry(reg, req);
    if (info.group === metricsGroup) handleMetrics(acting, info, req, reply);
    else await handleResource({ reg: acting }, info, req, reply);
    return reply;
  };
  // Writes to resources run in slices of the event loop (`writeSlices`), after the reads of the same turn: with many
  // clients writing at once, the loop would otherwise read a batch of writes and run them all before it polls again,
  // and a read, a watch event or an answer from etcd would wait behind the whole batch.
  const writeSlices = new TurnGate(writeSliceMs);
  const dispatch = (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    if (req.method === 'GET') return dispatchAsync(req, reply);
    const info = parseRequestPath(req.url);
    if (!info || info.discovery || isAdapterGroup(info.group) || info.group === metricsGroup) return dispatchAsync(req, reply);
    if (!reg.find(info.group, info.version, info.resource ?? '')) throw notFoundFor(reg, info.group, info.version);
    return writeSlices.run(() => handleResource({ reg: actingRegistry(reg, req) }, info, req, reply)).then(() => reply);
  };
  app.all('/api/*', dispatch);
  app.all('/apis/*', dispatch);
  // exec, attach and port-forward arrive as HTTP Upgrade requests: routed like any other (see streaming/upgrade.ts).
  installUpgrade(app);
  return app;
}
