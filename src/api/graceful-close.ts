// Graceful shutdown as kube-apiserver's: stop accepting connections, let requests in flight finish within a
// grace period, end watches (clients relist or rewatch elsewhere), then close what is left.
import type { FastifyInstance } from 'fastify';

/** How long requests in flight may take to finish once shutdown starts. */
export const defaultShutdownGraceMs = 5_000;

const closing = new WeakSet<FastifyInstance>();

/** Answers sent while shutting down tell the client not to reuse the connection. */
export function installGracefulClose(app: FastifyInstance): void {
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing.has(app)) reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * Closes `app`: no new connections (a request still arriving on an open keep-alive connection is served, and its
 * answer closes the connection, as Go's server does while shutting down; Fastify's own 503 is off), `endStreams`
 * ends watches and log follows, idle connections close as their last answer leaves, and whatever is still
 * open after `graceMs` is cut.
 */
export async function closeGracefully(app: FastifyInstance, endStreams: () => void, graceMs = defaultShutdownGraceMs): Promise<void> {
  closing.add(app);
  const server = app.server;
  const done = app.close();
  endStreams();
  const sweep = setInterval(() => server.closeIdleConnections(), 20);
  const force = setTimeout(() => server.closeAllConnections(), graceMs);
  try {
    await done;
  } finally {
    clearInterval(sweep);
    clearTimeout(force);
  }
}
