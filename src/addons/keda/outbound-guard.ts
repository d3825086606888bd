// Where KEDA's scalers may connect. Upstream's metrics-api scaler GETs any URL a ScaledObject names; here the server
// runs on a developer's machine (or a CI runner in a cloud), so link-local and cloud metadata addresses are refused:
// a ScaledObject must not read the instance's credentials and hand them back through external.metrics.k8s.io.
// Loopback and private ranges stay allowed (tests and developers serve metrics there). Names are checked before
// they are resolved and the addresses they resolve to are checked by the connection's own lookup, so the address
// checked is the address connected to (a name cannot answer safely for the check and otherwise for the connect).
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { BlockList, isIP, isIPv4, type LookupFunction } from 'node:net';

const blocked = new BlockList();
blocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local: AWS, GCP, Azure, OpenStack metadata (169.254.169.254), ECS
blocked.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
blocked.addSubnet('fe80::', 10, 'ipv6'); // link-local
blocked.addAddress('fd00:ec2::254', 'ipv6'); // AWS instance metadata over IPv6

/** Names of metadata services, refused whatever they resolve to. */
const blockedNames = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal', 'metadata.azure.com']);

/** Thrown (or passed to the connection) for an address or name the scalers do not connect to. */
export class RefusedAddress extends Error {
  readonly code = 'BONSAI_REFUSED_ADDRESS';
  constructor(readonly target: string) {
    super(`Bonsai's KEDA scalers do not connect to ${target}: link-local and cloud metadata addresses are refused`);
  }
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address, if any. */
function embeddedIPv4(v6: string): string | undefined {
  const m = /^(?:::ffff:(?:0:)?|64:ff9b::)(.+)$/i.exec(v6);
  if (!m) return undefined;
  if (isIPv4(m[1])) return m[1];
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(m[1]);
  if (!hex) return undefined;
  const hi = parseInt(hex[1], 16), lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether the scalers may connect to `address` (an IP literal). */
export function addressAllowed(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family !== 6) return false;
  const v4 = embeddedIPv4(address);
  if (v4 !== undefined) return !blocked.check(v4, 'ipv4');
  return !blocked.check(address, 'ipv6');
}

/** Refuses a URL's host before any connection: a blocked name, or an IP literal in a blocked range. */
export function checkHost(hostname: string): void {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase();
  if (blockedNames.has(host)) throw new RefusedAddress(host);
  if (isIP(host) && !addressAllowed(host)) throw new RefusedAddress(host);
}

export type Resolver = (hostname: string, options: LookupAllOptions, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

/**
 * A `lookup` for http(s).request: resolves as Node would, and fails the connection when any address the name has is
 * refused (so no answer order or family choice can pick the bad one).
 */
export function guardedLookup(resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { family: options.family, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = addresses.find((a) => !addressAllowed(a.address));
      if (bad) return callback(new RefusedAddress(`${hostname} (${bad.address})`), []);
      if (!addresses.length) return callback(Object.assign(new Error(`lookup ${hostname}: no such host`), { code: 'ENOTFOUND' }), []);
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
