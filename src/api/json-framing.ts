// Frames JSON answers as kube-apiserver's serializer does: `Content-Type: application/json` with no charset, and
// the body ending in a newline (Go's json.Encoder writes one after every value). Clients' own test suites compare
// these bytes.
import type { FastifyInstance } from 'fastify';

/** What Fastify labels JSON it serializes (or a string sent as JSON): upstream names no charset. */
const fastifyJson = 'application/json; charset=utf-8';

function isApiPath(url: string): boolean {
  return url.startsWith('/api/') || url === '/api' || url.startsWith('/apis') || url.startsWith('/api?');
}

export function installJsonFraming(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    const type = reply.getHeader('content-type');
    if (type === fastifyJson) {
      reply.header('content-type', 'application/json');
      // API objects, lists, tables, discovery and every Status end in a newline; the non-API JSON documents
      // (/version, /openapi) are written whole by upstream, without one.
      if (typeof payload === 'string' && !payload.endsWith('\n') && (reply.statusCode >= 400 || isApiPath(req.url))) {
        done(null, `${payload}\n`);
        return;
      }
    }
    done(null, payload);
  });
}
