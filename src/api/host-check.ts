// Defence against DNS rebinding: a web page on evil.example whose DNS later answers 127.0.0.1 can have the
// browser send requests to Bonsai as same-origin requests and read the answers (Secrets included). Such
// requests carry the attacker's name in the Host header, so only Host names Bonsai knows as its own are served.
//
// kube-apiserver checks no Host (it relies on authentication, which a browser cannot supply); the closest upstream
// guard is `kubectl proxy`, which refuses other Host names (`--accept-hosts`) with 403 Forbidden. Bonsai answers
// the same code as a Status, so kubectl and client libraries print a readable reason; 421 Misdirected Request
// would suit HTTP but no Kubernetes client explains it.
import { isIP } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { forbidden } from '../machinery/errors.js';

/** The host part of a Host header (`name:port`, `[v6]:port`, `name`), lower-case, without a trailing dot. */
function hostName(header: string): string {
  let h = header.trim().toLowerCase();
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 ? h.slice(1, end) : h;
  }
  if (h.indexOf(':') !== h.lastIndexOf(':') && isIP(h) === 6) return h; // an unbracketed IPv6 literal has no port
  const colon = h.lastIndexOf(':');
  if (colon >= 0) h = h.slice(0, colon);
  return h.endsWith('.') ? h.slice(0, -1) : h;
}

/**
 * The Host names served: every IP literal (a rebinding attack needs a DNS name: a page whose origin is an
 * address is served from that address, so it is the server itself or another origin the browser keeps apart),
 * `localhost`, and names added with `allow` (`--allowed-host`, the listen host when it is a name, TLS SANs).
 */
export class HostAllowList {
  private readonly names = new Set<string>(['localhost']);
  /** Host header values already found allowed (clients send the same one on every request). */
  private readonly seen = new Set<string>();

  constructor(names: Iterable<string> = []) {
    for (const n of names) this.allow(n);
  }

  allow(name: string): void {
    const n = hostName(name);
    if (n) this.names.add(n);
  }

  /** A request without Host (HTTP/1.0; Node refuses HTTP/1.1 without one) comes from no browser: allowed. */
  allows(header: string | undefined): boolean {
    if (header === undefined || this.seen.has(header)) return true;
    const name = hostName(header);
    const ok = isIP(name) !== 0 || this.names.has(name);
    if (ok && this.seen.size < 64) this.seen.add(header);
    return ok;
  }
}

/** Refuses requests naming a Host outside `hosts`, before anything else looks at them. */
export function installHostCheck(app: FastifyInstance, hosts: HostAllowList): void {
  app.addHook('onRequest', (req, _reply, done) => {
    const host = req.headers.host;
    if (hosts.allows(host)) return done();
    done(forbidden(`host "${hostName(host ?? '')}" is not allowed: this server answers requests for localhost, its IP addresses and the names given with --allowed-host`));
  });
}
