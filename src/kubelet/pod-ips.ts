// Addresses of the simulated network: a /24 pod CIDR and an InternalIP per node (numbered from 0), and the pod
// IPs a node hands out from its pod CIDR (a pod keeps its IP until it is released).
//
// Node n gets 10.244.n.0/24 for n < 256, then 10.(n>>8).(n&255).0/24 (10.1.0.0/24, ...); InternalIPs start at
// 172.18.0.3 (172.18.0.2 is the control plane) and skip .0 and .255 addresses.

/** A dotted IPv4 address (four groups of 1 to 3 digits, each at most 255) as a number; undefined for anything else. */
export function ipToInt(ip: string): number | undefined {
  // Read character by character (a restart reads 100,000 pod IPs): no match arrays.
  let n = 0;
  let part = 0;
  let digits = 0;
  let groups = 0;
  for (let i = 0; i <= ip.length; i++) {
    const c = i < ip.length ? ip.charCodeAt(i) : 46;
    if (c >= 48 && c <= 57) {
      if (++digits > 3) return undefined;
      part = part * 10 + (c - 48);
    } else if (c === 46) {
      if (digits === 0 || part > 255 || ++groups > 4) return undefined;
      n = n * 256 + part;
      part = 0;
      digits = 0;
    } else return undefined;
  }
  return groups === 4 ? n : undefined;
}

export function intToIp(n: number): string {
  return `${(n >>> 24) & 255}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export function podCidrForIndex(n: number): string {
  return n < 256 ? `10.244.${n}.0/24` : `10.${n >> 8}.${n & 255}.0/24`;
}

/** The node index a pod CIDR of ours stands for (undefined for CIDRs set by someone else). */
export function indexOfPodCidr(cidr: string): number | undefined {
  let m = /^10\.244\.(\d{1,3})\.0\/24$/.exec(cidr);
  if (m && Number(m[1]) < 256) return Number(m[1]);
  m = /^10\.(\d{1,3})\.(\d{1,3})\.0\/24$/.exec(cidr);
  if (m && Number(m[1]) >= 1 && Number(m[1]) < 244 && Number(m[2]) < 256) return (Number(m[1]) << 8) + Number(m[2]);
  return undefined;
}

const internalBase = ipToInt('172.18.0.0')!;
/** The control-plane node's InternalIP, which the API server advertises. */
export const controlPlaneIP = '172.18.0.2';

export function internalIpForIndex(n: number): string {
  // Usable host numbers per /24 block: 1..254; .1 is the gateway and .2 the control plane in block 0.
  const slot = n + 3;
  const block = Math.floor((slot - 1) / 254);
  const host = ((slot - 1) % 254) + 1;
  return intToIp(internalBase + block * 256 + host);
}

/** Parses an IPv4 CIDR into its first address and size. */
export function parseCidr(cidr: string): { base: number; size: number } | undefined {
  const m = /^([\d.]+)\/(\d{1,2})$/.exec(cidr);
  if (!m) return undefined;
  const ip = ipToInt(m[1]);
  const bits = Number(m[2]);
  if (ip === undefined || bits > 30 || bits < 8) return undefined;
  const size = 2 ** (32 - bits);
  return { base: ip - (ip % size), size };
}

/** Pod IPs of one node: .2 upwards within its pod CIDR (.1 is the bridge), round robin so freed IPs rest a while. */
export class PodIPPool {
  private readonly byPod = new Map<string, number>();
  private readonly used = new Set<number>();
  private cursor = 0;
  private readonly base: number;
  private readonly size: number;

  constructor(cidr: string | undefined) {
    const c = (cidr && parseCidr(cidr)) || parseCidr('10.244.0.0/24')!;
    this.base = c.base;
    this.size = c.size;
  }

  /** Marks an IP already held by a pod (found in its status after a restart). */
  adopt(podUid: string, ip: string): void {
    const n = ipToInt(ip);
    if (n === undefined || n < this.base || n >= this.base + this.size || this.used.has(n)) return;
    this.byPod.set(podUid, n);
    this.used.add(n);
  }

  /** As allocate, without formatting the address (a pod adopted with the address it holds already). */
  hold(podUid: string): void {
    if (!this.byPod.has(podUid)) this.allocate(podUid);
  }

  allocate(podUid: string): string {
    const have = this.byPod.get(podUid);
    if (have !== undefined) return intToIp(have);
    const usable = this.size - 3;
    for (let i = 0; i < usable; i++) {
      const offset = 2 + ((this.cursor + i) % usable);
      const ip = this.base + offset;
      if (this.used.has(ip)) continue;
      this.cursor = (this.cursor + i + 1) % usable;
      this.used.add(ip);
      this.byPod.set(podUid, ip);
      return intToIp(ip);
    }
    // Exhausted (more pods than the CIDR holds): share the last address rather than fail the simulation.
    return intToIp(this.base + this.size - 2);
  }

  release(podUid: string): void {
    const ip = this.byPod.get(podUid);
    if (ip === undefined) return;
    this.byPod.delete(podUid);
    this.used.delete(ip);
  }
}
