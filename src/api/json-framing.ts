// Frames JSON answers as kube-apiserver's serializer does: `Content-Type: application/json` with no charset, the
// body ending in a newline (Go's json.Encoder writes one after every value), `<`, `>` and `&` escaped in error
// bodies as Go escapes them, and indented output for `?pretty=true` or a curl, Wget or browser User-Agent (Go's
// MarshalIndent: two spaces, no final newline). Clients' own test suites compare these bytes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { escapeHtml } from '../util/go-format.js';

/** What Fastify labels JSON it serializes (or a string sent as JSON): upstream names no charset. */
const fastifyJson = 'application/json; charset=utf-8';

function isApiPath(url: string): boolean {
  return url.startsWith('/api/') || url === '/api' || url.startsWith('/apis') || url.startsWith('/api?');
}

/** Upstream's isPrettyPrint: the `pretty` parameter wins; otherwise human clients get indented JSON. */
export function wantsPretty(req: FastifyRequest): boolean {
  const url = req.url;
  const q = url.indexOf('?');
  if (q >= 0 && url.includes('pretty', q)) {
    const v = new URLSearchParams(url.slice(q + 1)).get('pretty');
    if (v) return v === 'true' || v === '1' || v === 't' || v === 'T' || v === 'TRUE' || v === 'True';
  }
  const ua = req.headers['user-agent'];
  return !!ua && (ua.startsWith('curl') || ua.startsWith('Wget') || ua.startsWith('Mozilla/5.0'));
}

function indent(json: string): string | undefined {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return undefined; // nested too deep to re-indent: compact it stays
  }
}

export function installJsonFraming(app: FastifyInstance): void {
  app.addHook('onSend', (req, reply, payload, done) => {
    if (reply.getHeader('content-type') !== fastifyJson) return done(null, payload);
    reply.header('content-type', 'application/json');
    // API objects, lists, tables, discovery and every Status are encoded; the non-API JSON documents (/version,
    // /openapi) are written whole by upstream, without a newline.
    if (typeof payload !== 'string' || !(reply.statusCode >= 400 || isApiPath(req.url))) return done(null, payload);
    let body = reply.statusCode >= 400 ? escapeHtml(payload) : payload;
    if (wantsPretty(req)) {
      const pretty = indent(body);
      if (pretty !== undefined) return done(null, escapeHtml(pretty));
    }
    if (!body.endsWith('\n')) body += '\n';
    done(null, body);
  });
}
