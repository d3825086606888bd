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
  /** `--authorization-mode`, a comma list (RBAC counts as authentication being required, unless AlwaysAllow is listed too). */
  authorizationMode?: string;
}

/**
 * Whether anyone may do anything: anonymous requests are on and a mode in the list allows every request
 * (`AlwaysAllow`, wherever it stands: `RBAC,AlwaysAllow` lets through whatever RBAC has no rule for).
 */
function allowsEveryone(o: Pick<ExposureOptions, 'anonymousAuth' | 'authorizationMode'>): boolean {
  return o.anonymousAuth && modesOf(o.authorizationMode).includes('AlwaysAllow');
}

function modesOf(spec: string | undefined): string[] {
  return (spec ?? 'AlwaysAllow').split(',').map((m) => m.trim()).filter(Boolean);
}

/** Why the server must not start with these options (unless `--insecure`), or undefined when it may. */
export function exposureProblem(o: ExposureOptions): string | undefined {
  if (isLoopback(o.host)) return undefined;
  const modes = modesOf(o.authorizationMode);
  // Requests must authenticate, or RBAC decides alone what anonymous requests may do.
  const authenticated = !o.anonymousAuth || (modes.includes('RBAC') && !allowsEveryone(o));
  if (o.tls && authenticated) return undefined;
  const authz = modes.includes('RBAC')
    ? `an authorization mode list that denies by default (--authorization-mode ${modes.join(',')} lets anonymous requests do anything: drop AlwaysAllow, or pass --anonymous-auth=false)`
    : 'authentication (--anonymous-auth=false or --authorization-mode RBAC)';
  const missing = [!o.tls ? '--tls' : '', !authenticated ? authz : ''].filter(Boolean).join(' and ');
  return `refusing to serve on non-loopback address ${o.host} without ${missing}; anyone who can reach it could take over the cluster (pass --insecure to serve anyway)`;
}
