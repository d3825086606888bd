// Graceful shutdown as kube-apiserver's: stop accepting connections, let requests in flight finish within a
// grace period, end watches (clients relist or rewatch elsewhere), then close what is left.
//
// What must not happen is a request the client had sent before the stop being reset unanswered. Three ways it
// could: (1) a connection still in the listen backlog when the listener closes (the kernel resets it; Node accepts
// one connection per turn of the event loop, so under load the backlog holds dozens); (2) a keep-alive connection
// whose next request sits unread in the kernel when it is judged idle and destroyed (Node's `server.close()` does
// that at once, for every connection with no request being parsed); (3) a new connection accepted just before
// that, whose first request nobody has read yet. So: the listener stays open (its connections served, their
// answers closing them) until a turn of the loop accepts nothing, i.e. the backlog is empty, or half the grace
// period has gone; and a connection closes as idle only when it was idle at two looks with a poll phase between
// them and read nothing in between.
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { nextTurn } from '../util/next-turn.js';

/** How long requests in flight may take to finish once shutdown starts. */
export const defaultShutdownGraceMs = 5_000;

/** How often idle connections are looked at while closing. */
const sweepEveryMs = 20;

interface Connection {
  /** Requests parsed on it whose answers have not ended. */
  busy: number;
  /** Its byte count when last seen idle (undefined: it was busy at the last look). */
  idleAt?: number;
}

/** The server's connections and whether each is serving a request, from its own events. */
class Connections {
  readonly open = new Map<Socket, Connection>();
  /** Connections accepted so far (TCP, before any TLS handshake). */
  accepted = 0;

  constructor(server: Server, tls: boolean) {
    server.on('connection', () => void this.accepted++);
    // A TLS connection counts once its handshake is done (before that it is no HTTP connection yet).
    server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => {
      this.open.set(socket, { busy: 0 });
      socket.once('close', () => this.open.delete(socket));
    });
    server.on('request', (req, res) => {
      const c = this.open.get(req.socket);
      if (!c) return;
      c.busy++;
      res.once('close', () => void c.busy--);
    });
    // An upgraded connection (exec, attach, port-forward, WebSocket watch) belongs to its handler from then on.
    server.on('upgrade', (req: { socket: Socket }) => void this.open.delete(req.socket));
  }

  /** Closes the connections idle now and at the last look, with nothing read since. */
  sweep(): void {
    for (const [socket, c] of this.open) {
      if (c.busy > 0) {
        c.idleAt = undefined;
      } else if (c.idleAt === socket.bytesRead) {
        socket.destroy();
      } else {
        c.idleAt = socket.bytesRead;
      }
    }
  }

  destroyAll(): void {
    for (const socket of this.open.keys()) socket.destroy();
  }
}

const closing = new WeakSet<FastifyInstance>();
const connectionsOf = new WeakMap<FastifyInstance, Connections>();

/** Answers sent while shutting down tell the client not to reuse the connection. */
export function installGracefulClose(app: FastifyInstance, tls: boolean): void {
  connectionsOf.set(app, new Connections(app.server, tls));
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing.has(app)) reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * Closes `app`: no new connections (a request still arriving on an open keep-alive connection is served, and its
 * answer closes the connection, as Go's server does while shutting down; Fastify's own 503 is off), `endStreams`
 * ends watches and log follows, idle connections close (see above), and whatever is still open after `graceMs`
 * is cut.
 */
export async function closeGracefully(app: FastifyInstance, endStreams: () => void, graceMs = defaultShutdownGraceMs): Promise<void> {
  closing.add(app);
  const server = app.server;
  const connections = connectionsOf.get(app);
  const force = setTimeout(() => {
    server.closeAllConnections();
    connections?.destroyAll();
  }, graceMs);
  let closed = false;
  try {
    await nextTurn();
    // From here each wait spans a poll phase: one that accepts nothing found the backlog empty.
    const drainUntil = Date.now() + graceMs / 2;
    for (let seen = -1; connections && connections.accepted !== seen && Date.now() < drainUntil;) {
      seen = connections.accepted;
      await nextTurn();
    }
    // Node's server.close() closes idle connections at once, unread requests and all: it gets the careful look.
    const nodeLook = server.closeIdleConnections.bind(server);
    const look = connections ? () => connections.sweep() : nodeLook;
    server.closeIdleConnections = look;
    const done = app.close().finally(() => void (closed = true));
    endStreams();
    // Each later look comes in a check phase after a timer, so a poll phase always lies between two looks.
    const sweeping = (async () => {
      while (!closed) {
        await new Promise((resolve) => setTimeout(resolve, sweepEveryMs));
        await nextTurn();
        if (!closed) look();
      }
    })();
    await done;
    await sweeping;
  } finally {
    closed = true;
    clearTimeout(force);
  }
}
