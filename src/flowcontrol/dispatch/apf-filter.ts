// The API Priority and Fairness filter (kube-apiserver's WithPriorityAndFairness), after authentication and
// authorization: each request is classified, named in the X-Kubernetes-PF-* headers, and executes once its level
// grants it a seat, or is answered 429 (upstream's text, Retry-After from the level's recent rejections) when its
// queue is full or it waited past the queue wait limit. Long-running requests other than watches (exec, attach,
// port-forward, proxy, logs) are not limited, as upstream; a watch holds its seat until its initial events are out.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isLongRunning, tooManyRequestsText } from '../../api/inflight.js';
import { attributesOf } from '../../api/request-info.js';
import type { Registry } from '../../registry/registry.js';
import type { UserInfo } from '../../auth/types.js';
import { parseGoDuration } from '../../util/duration.js';
import { FlowControl, type Admission } from './flow-control.js';
import { bindSeat } from './outbound.js';

export const flowSchemaUidHeader = 'X-Kubernetes-PF-FlowSchema-UID';
export const priorityLevelUidHeader = 'X-Kubernetes-PF-PriorityLevel-UID';

/** Upstream's queue wait limit: a quarter of the request's deadline (60 s by default, `?timeout=`), at most 1 min. */
const defaultRequestTimeoutMs = 60_000;
const maxWaitMs = 60_000;

export function queueWaitLimitMs(url: string): number {
  const q = url.indexOf('?');
  let timeout = defaultRequestTimeoutMs;
  if (q >= 0 && url.includes('timeout=', q)) {
    const v = new URLSearchParams(url.slice(q + 1)).get('timeout');
    const ms = v ? parseGoDuration(v) : undefined;
    if (ms !== undefined && ms > 0) timeout = ms;
  }
  return Math.min(maxWaitMs, timeout / 4);
}

const admissionKey = Symbol('bonsai.apf.admission');
const watchInitKey = Symbol('bonsai.apf.watchInitialized');
type Tagged = FastifyRequest & { [admissionKey]?: Admission; [watchInitKey]?: () => void };

/** Called by the watch handler once a watch's initial events are written: its seat is given back. */
export function watchInitialized(req: FastifyRequest): void {
  const t = req as Tagged;
  const fn = t[watchInitKey];
  t[watchInitKey] = undefined;
  fn?.();
}

const controls = new WeakMap<object, FlowControl>();

/** The dispatcher serving `app`, if APF is on. */
export function flowControlOf(app: FastifyInstance): FlowControl | undefined {
  return controls.get(app.server);
}

/** The registry view a request acts through, carrying its seat (so outbound calls can give the seat back). */
export function actingRegistry(reg: Registry, req: FastifyRequest): Registry {
  const view = reg.as(req.user as UserInfo);
  const a = (req as Tagged)[admissionKey];
  const bound = a && controls.get(req.server.server)?.outbound;
  if (!a || !bound) return view;
  let suspended = false;
  bindSeat(view, {
    suspend: () => {
      if (suspended || a.ticket.state !== 'executing' || !bound.take()) return false;
      suspended = true;
      a.level.queues.suspend(a.ticket);
      return true;
    },
    resume: () => {
      if (!suspended) return;
      suspended = false;
      bound.give();
      a.level.queues.resume(a.ticket);
    },
  });
  return view;
}

function reject(fc: FlowControl, a: Admission, reply: FastifyReply): void {
  if (reply.raw.destroyed || reply.sent) return;
  reply.code(429).header('Retry-After', String(fc.drops.retryAfter(a.level.name))).header('Content-Type', 'text/plain; charset=utf-8')
    .header('X-Content-Type-Options', 'nosniff').send(tooManyRequestsText);
}

/** Adds the filter; `serverLimit` is the seats all levels share. Returns the dispatcher. */
export function installPriorityAndFairness(app: FastifyInstance, reg: Registry, serverLimit: number): FlowControl {
  const fc = new FlowControl(reg, serverLimit);
  controls.set(app.server, fc);
  app.addHook('onClose', (_app, done) => {
    fc.stop();
    done();
  });
  app.addHook('onRequest', (req, reply, done) => {
    // Public paths (the dashboard's bundle) have no user; exec and friends are not limited.
    if (!req.user) return done();
    const attrs = attributesOf(req);
    const watch = attrs.verb === 'watch';
    if (!watch && isLongRunning(req)) return done();
    const c = fc.classify(attrs);
    if (!c) return done();
    // Upstream names the UIDs, not the names, of the schema and level (on rejections too).
    reply.raw.setHeader(flowSchemaUidHeader, c.flowSchema.metadata.uid ?? '');
    reply.raw.setHeader(priorityLevelUidHeader, c.level.pl.metadata.uid ?? '');
    let admission: Admission | undefined;
    let decided: boolean | undefined;
    const decide = (ok: boolean) => {
      decided = ok;
      // Decided during admit(): handled below, once `admission` is known.
      if (!admission) return;
      if (ok) done();
      else reject(fc, admission, reply);
    };
    admission = fc.admit(c, attrs, queueWaitLimitMs(req.url), decide);
    (req as Tagged)[admissionKey] = admission;
    const a = admission;
    const end = () => fc.finish(a);
    // The seat is held until the response is over (sent, streamed, or abandoned by the client); a watch gives it back
    // once its initial events are out.
    reply.raw.once('close', end);
    if (watch) (req as Tagged)[watchInitKey] = end;
    if (decided === true) done();
    else if (decided === false) reject(fc, a, reply);
  });
  return fc;
}
