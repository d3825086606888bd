// kube-apiserver's max-in-flight filter (`--max-requests-inflight`, `--max-mutating-requests-inflight`): requests
// being served are counted, read-only and mutating apart; one arriving beyond its limit is answered 429 with
// `Retry-After: 1`, as upstream's http.Error writes it (plain text). Long-running requests (watches, proxy, exec,
// attach, port-forward, logs) are not counted, and members of system:masters are always served. 0 disables a limit.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { groups } from '../auth/types.js';
import { attributesOf } from './request-info.js';

export const defaultMaxRequestsInflight = 400;
export const defaultMaxMutatingRequestsInflight = 200;

/** The body of upstream's 429 (Go's http.Error adds the newline). */
export const tooManyRequestsText = 'Too many requests, please try again later.\n';

export interface InflightLimits {
  /** Read-only requests served at once (default 400; 0: no limit). */
  maxRequestsInflight?: number;
  /** Mutating requests served at once (default 200; 0: no limit). */
  maxMutatingRequestsInflight?: number;
}

const nonMutatingVerbs = new Set(['get', 'list', 'watch']);
const longRunningVerbs = new Set(['watch', 'proxy']);
const longRunningSubresources = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

/** Upstream's BasicLongRunningRequestCheck with kube-apiserver's verbs and subresources. */
export function isLongRunning(req: FastifyRequest): boolean {
  const a = attributesOf(req);
  return a.resourceRequest && (longRunningVerbs.has(a.verb) || longRunningSubresources.has(a.subresource));
}

/** The requests counted now, by kind. */
export interface InflightCounts {
  readOnly: number;
  mutating: number;
}

const countsByServer = new WeakMap<object, InflightCounts>();

/** The requests `app` counts now (zeros when it has no limits). */
export function inflightOf(app: FastifyInstance): InflightCounts {
  return countsByServer.get(app.server) ?? { readOnly: 0, mutating: 0 };
}

/** Adds the filter (after authentication and authorization, so the user is known); returns the live counts. */
export function installInflightLimits(app: FastifyInstance, limits: InflightLimits = {}): InflightCounts {
  const counts: InflightCounts = { readOnly: 0, mutating: 0 };
  countsByServer.set(app.server, counts);
  const max = {
    readOnly: limits.maxRequestsInflight ?? defaultMaxRequestsInflight,
    mutating: limits.maxMutatingRequestsInflight ?? defaultMaxMutatingRequestsInflight,
  };
  if (max.readOnly <= 0 && max.mutating <= 0) return counts;
  app.addHook('onRequest', (req, reply, done) => {
    if (isLongRunning(req)) return done();
    const kind: keyof InflightCounts = nonMutatingVerbs.has(attributesOf(req).verb) ? 'readOnly' : 'mutating';
    if (max[kind] <= 0) return done();
    if (counts[kind] >= max[kind]) {
      // A system:master is served whatever the load (and takes no slot), as upstream's filter lets it through.
      if (req.user?.groups.includes(groups.masters)) return done();
      reply.code(429).header('Retry-After', '1').header('Content-Type', 'text/plain; charset=utf-8').header('X-Content-Type-Options', 'nosniff').send(tooManyRequestsText);
      return;
    }
    counts[kind]++;
    // The slot is held until the response is over: sent (streamed lists included) or abandoned by the client.
    reply.raw.once('close', () => {
      counts[kind]--;
    });
    done();
  });
  return counts;
}
