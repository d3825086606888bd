// HTTP Upgrade requests (WebSocket, SPDY/3.1) go through the same Fastify routing, authentication and authorization
// as any request: the server's 'upgrade' event hands them to Fastify with a response bound to the socket, so an
// error is an ordinary HTTP answer, and a handler that accepts the upgrade takes the socket (`takeUpgrade`).
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';

interface Pending {
  socket: Duplex;
  head: Buffer;
  res: ServerResponse;
  taken: boolean;
}

const pending = new WeakMap<IncomingMessage, Pending>();
/** Sockets taken by streaming handlers, ended when the server closes. */
const live = new WeakMap<FastifyInstance, Set<Duplex>>();
const appOf = new WeakMap<IncomingMessage, FastifyInstance>();

/** Routes the server's upgrade requests through `app`. */
export function installUpgrade(app: FastifyInstance): void {
  const sockets = new Set<Duplex>();
  live.set(app, sockets);
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const res = new ServerResponse(req);
    // Node parses nothing more on an upgraded socket: an answer that is not an upgrade must say the connection ends,
    // or a keep-alive client would send its next request down a socket nobody reads.
    res.shouldKeepAlive = false;
    const p: Pending = { socket, head, res, taken: false };
    pending.set(req, p);
    appOf.set(req, app);
    socket.on('error', () => socket.destroy());
    res.assignSocket(socket as never);
    // An answer that is not an upgrade: the connection ends with it.
    res.on('finish', () => {
      if (!p.taken) socket.end();
    });
    try {
      app.routing(req, res);
    } catch {
      socket.destroy();
    }
  });
  app.addHook('preClose', (done) => {
    for (const s of sockets) s.end();
    setTimeout(() => {
      for (const s of sockets) s.destroy();
    }, 1000).unref();
    done();
  });
}

/** The socket of an upgrade request, taken over by the caller (undefined for a plain request). */
export function takeUpgrade(req: IncomingMessage): { socket: Duplex; head: Buffer } | undefined {
  const p = pending.get(req);
  if (!p || p.taken) return undefined;
  p.taken = true;
  p.res.detachSocket(p.socket as never);
  const sockets = live.get(appOf.get(req) as FastifyInstance);
  sockets?.add(p.socket);
  p.socket.on('close', () => sockets?.delete(p.socket));
  return { socket: p.socket, head: p.head };
}

/** Whether this request came with an Upgrade header the server routes here. */
export function isUpgrade(req: IncomingMessage): boolean {
  return pending.has(req);
}
