// Defence against web pages driving the server from the user's browser. By default Bonsai serves plain HTTP and the
// anonymous user may do anything, so a page on any site could POST objects (a body with no Content-Type is read as
// JSON, as upstream reads it, and such a `no-cors` fetch needs no preflight) or open an exec WebSocket (upgrades are
// outside CORS) and read what it prints. Browsers name the page in `Origin` (and `Sec-Fetch-Site`); curl, kubectl and
// client libraries send neither. So every request that changes something (any method but GET, HEAD and OPTIONS) and
// every upgrade is refused when a browser says it comes from another origin, unless `--cors-allowed-origins` allows
// that origin. Reads need no check: a page may send them, but without CORS headers the browser hides the answer.
//
// kube-apiserver checks no Origin (a browser cannot supply its credentials); it only answers CORS for the origins
// `--cors-allowed-origins` matches, before authentication: those get the Access-Control-* headers on every answer
// and their preflights a 204. Bonsai does the same for them, with the same patterns (Go regular expressions, read by
// the RE2 engine, so matching takes linear time whatever the pattern).
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../machinery/errors.js';

/** A compiled `--cors-allowed-origins` pattern (unanchored search, as Go's MatchString). */
export interface OriginPattern {
  test(origin: string): boolean;
}

/** Requests whose method changes nothing; anything else is checked (and every upgrade, whatever its method). */
const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Longer Origin values are no origin a browser sends: never matched against patterns, refused where checked. */
const maxOriginLength = 1024;
/** kube-apiserver's CORS answer (its defaults: WithCORS is given no methods or headers, and credentials "true"). */
const corsHeaders: ReadonlyArray<[string, string]> = [
  ['Access-Control-Allow-Methods', 'POST, GET, OPTIONS, PUT, DELETE, PATCH'],
  ['Access-Control-Allow-Headers', 'Content-Type, Content-Length, Accept-Encoding, X-CSRF-Token, Authorization, X-Requested-With, If-Modified-Since'],
  ['Access-Control-Expose-Headers', 'Date'],
  ['Access-Control-Allow-Credentials', 'true'],
];

/** `scheme://host[:port]` in lower case, the scheme's default port dropped; undefined for anything else (`null`). */
export function normalOrigin(origin: string): string | undefined {
  const m = /^(https?):\/\/([^/?#@\s\\]+)$/i.exec(origin);
  if (!m) return undefined;
  return `${m[1].toLowerCase()}://${hostPort(m[2], m[1].toLowerCase())}`;
}

/** A Host header in lower case without the scheme's default port (browsers omit it in Origin). */
function hostPort(host: string, scheme: string): string {
  const h = host.trim().toLowerCase();
  const dflt = scheme === 'https' ? ':443' : ':80';
  return h.endsWith(dflt) ? h.slice(0, -dflt.length) : h;
}

export interface OriginRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** Whether the request came over TLS (the server's own origin is https then). */
  tls: boolean;
}

/** What to do with a request: answer CORS for an allowed origin, let it through, or refuse it with a reason. */
export type OriginVerdict = { kind: 'cors' } | { kind: 'pass' } | { kind: 'refuse'; message: string };

const allowHint = 'a web page from another site may not change the cluster or open streams; start the server with --cors-allowed-origins to allow an origin';

function quoted(v: string): string {
  return JSON.stringify(v.length > 128 ? `${v.slice(0, 128)}…` : v);
}

/** The verdict on one request, given the allowed origin patterns. */
export function judgeOrigin(r: OriginRequest, allowed: readonly OriginPattern[]): OriginVerdict {
  const header = r.headers.origin;
  const origin = typeof header === 'string' ? header : undefined;
  // Only a well-formed value is echoed back in Access-Control-Allow-Origin (visible ASCII, bounded).
  if (origin !== undefined && origin.length <= maxOriginLength && /^[\x21-\x7e]+$/.test(origin) && allowed.some((p) => p.test(origin))) return { kind: 'cors' };
  if (safeMethods.has(r.method) && r.headers.upgrade === undefined) return { kind: 'pass' };
  const scheme = r.tls ? 'https' : 'http';
  const own = typeof r.headers.host === 'string' ? `${scheme}://${hostPort(r.headers.host, scheme)}` : undefined;
  if (origin !== undefined) {
    if (own !== undefined && normalOrigin(origin) === own) {
      const site = r.headers['sec-fetch-site'];
      if (site !== 'cross-site' && site !== 'same-site') return { kind: 'pass' };
    }
    return { kind: 'refuse', message: `cross-origin request refused: Origin ${quoted(origin)} is not this server's origin${own ? ` (${own})` : ''}: ${allowHint}` };
  }
  const site = r.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return { kind: 'refuse', message: `cross-origin request refused: the browser sent it from another origin (Sec-Fetch-Site: ${site}): ${allowHint}` };
  return { kind: 'pass' };
}

/**
 * Adds the check to the server, before authentication (as upstream's CORS filter): allowed origins get the CORS
 * headers (on the raw response, so hijacked answers carry them too) and their preflights a 204; cross-origin
 * browser requests that change something or upgrade are refused with a 403 Status.
 */
export function installOriginCheck(app: FastifyInstance, allowed: readonly OriginPattern[] = []): void {
  app.addHook('onRequest', (req, reply, done) => {
    const v = judgeOrigin({ method: req.method, headers: req.headers, tls: !!(req.raw.socket as { encrypted?: boolean } | null)?.encrypted }, allowed);
    if (v.kind === 'pass') return done();
    if (v.kind === 'refuse') return done(forbidden(v.message));
    reply.raw.setHeader('Access-Control-Allow-Origin', req.headers.origin as string);
    for (const [k, val] of corsHeaders) reply.raw.setHeader(k, val);
    if (req.method !== 'OPTIONS') return done();
    // A preflight from an allowed origin is answered here, as upstream does, before authentication.
    void reply.code(204).send();
  });
}

const patternHelp = "anchor each pattern to the whole host: start it with '^' or '//' and end it with '$' or the port separator ':', e.g. '//example\\.com(:|$)' or '^https://example\\.com(:|$)'";

/**
 * `--cors-allowed-origins` compiled, or an Error saying which pattern is wrong. Like kube-apiserver, refuses an empty
 * pattern, one that is no Go regular expression, and one that does not pin the start and end of the host (an
 * unanchored `example.com` would also allow `evil-example.com.attacker.net`). RE2 is loaded only when there are patterns.
 */
export async function compileOriginPatterns(list: readonly string[]): Promise<OriginPattern[]> {
  if (!list.length) return [];
  const { makeRegExp, regexpError } = await import('../apiextensions/schema/regexp.js');
  return list.map((p) => {
    if (p === '') throw new Error(`--cors-allowed-origins: empty pattern; ${patternHelp}`);
    const err = regexpError(p);
    if (err) throw new Error(`--cors-allowed-origins: ${quoted(p)} is not a valid regular expression: ${err}`);
    const pinsStart = p.includes('^') || p.includes('//');
    const pinsEnd = p.includes('$') || p.includes(':');
    if (!pinsStart || !pinsEnd) throw new Error(`--cors-allowed-origins: ${quoted(p)} does not pin the start and end of the host in the Origin header; ${patternHelp}`);
    return makeRegExp(p, '');
  });
}
