// Safe defaults: Bonsai listens on loopback unless told otherwise, and a non-loopback address is refused unless
// requests are encrypted and authenticated (or the user says `--insecure`).
import { isIP } from 'node:net';

export function isLoopback(host: string): boolean {
  const h = host.trim().replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  return /^::ffff:127\./.test(h);
}

export interface ExposureOptions {
  host: string;
  tls: boolean;
  anonymousAuth: boolean;
  /** `--authorization-mode` (RBAC counts as authentication being required). */
  authorizationMode?: string;
}

/** Why the server must not start with these options (unless `--insecure`), or undefined when it may. */
export function exposureProblem(o: ExposureOptions): string | undefined {
  if (isLoopback(o.host)) return undefined;
  const authenticated = !o.anonymousAuth || (o.authorizationMode ?? '').split(',').includes('RBAC');
  if (o.tls && authenticated) return undefined;
  const missing = [!o.tls ? '--tls' : '', !authenticated ? 'authentication (--anonymous-auth=false or --authorization-mode RBAC)' : ''].filter(Boolean).join(' and ');
  return `refusing to serve on non-loopback address ${o.host} without ${missing}; anyone who can reach it could take over the cluster (pass --insecure to serve anyway)`;
}
