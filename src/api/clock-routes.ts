// The simulated clock over HTTP, for tools and other languages:
//   GET  /bonsai/v1/clock  -> {"mode":"scaled"|"virtual","now":"RFC3339","speed":N,"paused":bool}
//   POST /bonsai/v1/clock  <- {"action":"pause"|"resume"|"step"|"advance"|"speed","seconds":N,"speed":N}
// and answers the clock's state after the action. Both paths pass the request chain as any non-resource URL (verbs
// get and post); changing the clock also takes what stopping a node takes: `update` on `nodes` (system:masters
// always may). Also tells the virtual clock that a request is being answered, so it does not jump meanwhile.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../registry/registry.js';
import { ApiError, badRequest } from '../machinery/errors.js';
import { isRecord } from '../machinery/types.js';
import { getOwn } from '../util/own.js';
import { isControllable, maxClockSpeed, type ClockStatus, type ControllableClock } from '../util/clock.js';
import { authorizationOf, forbiddenError } from '../auth/authorization.js';
import type { RequestAttributes } from '../auth/types.js';
import { parseBody } from './body.js';

export const clockPath = '/bonsai/v1/clock';
/** The longest step or advance one request may ask for: a day of simulated time. */
export const maxStepSeconds = 86_400;
/** After an answer, how long the clock still waits for the same client's next request (kubectl sends several). */
const requestGraceMs = 10;
/** A request answered for longer than this no longer holds the clock (a stalled client must not stop time). */
const maxHoldMs = 5_000;
/** Requests tracked at once; past this many, further ones are not tracked. */
const maxTracked = 10_000;

/** Requests that stay open by design (watches, followed logs, streams): they do not hold the clock. */
const longRunning = /[?&](?:watch|follow)=(?:true|1)(?:&|$)|\/watch\/|\/(?:exec|attach|portforward)(?:\?|$)/;

/** Requests being answered, and when the last one ended: while any is, or just was, the virtual clock does not jump. */
class RequestTracker {
  private readonly open = new Map<number, number>();
  private seq = 0;
  private lastEnd = 0;

  begin(req: FastifyRequest, reply: FastifyReply): void {
    const path = req.url;
    if (path.startsWith(clockPath) || longRunning.test(path) || this.open.size >= maxTracked) return;
    const id = ++this.seq;
    this.open.set(id, Date.now());
    reply.raw.once('close', () => {
      this.open.delete(id);
      this.lastEnd = Date.now();
    });
  }

  busy(): boolean {
    const now = Date.now();
    if (now - this.lastEnd < requestGraceMs) return true;
    for (const started of this.open.values()) if (now - started < maxHoldMs) return true;
    return false;
  }
}

/** Makes requests hold the virtual clock while they are answered; install before the request chain, so every request counts. */
export function trackRequestsForClock(app: FastifyInstance, reg: Registry): void {
  const clock = reg.clock;
  if (!isControllable(clock)) return;
  const tracker = new RequestTracker();
  const remove = clock.idle.add(() => tracker.busy());
  app.addHook('onClose', (_app, done) => {
    remove();
    done();
  });
  app.addHook('onRequest', (req, reply, done) => {
    tracker.begin(req, reply);
    done();
  });
}

function statusOf(reg: Registry): ClockStatus {
  const clock = reg.clock;
  if (isControllable(clock)) return clock.status();
  return { mode: 'scaled', now: clock.now().toISOString(), speed: 1, paused: false };
}

/** Who may change the clock: whoever may update nodes (stopping a node takes the same). */
function authorizeChange(reg: Registry, req: FastifyRequest): void {
  const attrs: RequestAttributes = {
    user: req.user, verb: 'update', resourceRequest: true, path: '/api/v1/nodes', apiGroup: '', apiVersion: 'v1', namespace: '',
    resource: 'nodes', subresource: '', name: '',
  };
  const { decision, reason } = authorizationOf(reg).authorize(attrs);
  if (decision !== 'allow') throw forbiddenError(attrs, reason);
}

function numberField(body: Record<string, unknown>, field: string, max: number): number {
  const v = getOwn(body, field);
  if (v === undefined) throw badRequest(`${field} is required for this action`);
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > max) throw badRequest(`${field} must be a number from 0 to ${max}`);
  return v;
}

async function act(clock: ControllableClock, body: Record<string, unknown>): Promise<void> {
  const action = getOwn(body, 'action');
  switch (action) {
    case 'pause':
      return clock.pause();
    case 'resume':
      return clock.resume();
    case 'step':
      return clock.step(numberField(body, 'seconds', maxStepSeconds) * 1000);
    case 'advance':
      return clock.advance(numberField(body, 'seconds', maxStepSeconds) * 1000);
    case 'speed': {
      const speed = numberField(body, 'speed', maxClockSpeed);
      if (clock.mode === 'virtual') throw badRequest('the virtual clock has no speed: it jumps to the next timer whenever the server is idle');
      return clock.setSpeed(speed);
    }
    default:
      throw badRequest('action must be one of pause, resume, step, advance, speed');
  }
}

export function registerClockRoutes(app: FastifyInstance, reg: Registry): void {
  app.get(clockPath, async (_req, reply) => reply.type('application/json').send(statusOf(reg)));
  app.post(clockPath, async (req, reply) => {
    authorizeChange(reg, req);
    const clock = reg.clock;
    if (!isControllable(clock)) throw new ApiError(405, 'MethodNotAllowed', 'this server\'s clock cannot be changed');
    const body = parseBody(Buffer.isBuffer(req.body) ? req.body : undefined, req.headers['content-type']);
    if (!isRecord(body)) throw badRequest('the body must be a JSON object such as {"action":"pause"}');
    await act(clock, body);
    return reply.type('application/json').send(clock.status());
  });
}
