// Kubernetes' IP and CIDR libraries: ip(s), isIP(s), ip.isCanonical(s), cidr(s), isCIDR(s), string(...) and their methods.
import { isIPv4, isIPv6 } from 'node:net';
import { celFunc, celMethod, CelScalar, type CelFunc } from '@bufbuild/cel';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { makeOpaque, opaquePayload, opaqueTypes } from './opaque.js';

const { STRING, BOOL, INT } = CelScalar;
const IP = opaqueTypes.ip;
const CIDR = opaqueTypes.cidr;

interface Addr { bytes: number[]; text: string }
interface Net { addr: Addr; bits: number }

function v4bytes(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
    out.push(Number(p));
  }
  return out;
}

function v6bytes(s: string): number[] | undefined {
  if (!isIPv6(s) || s.includes('%')) return undefined;
  let head = s;
  let tailV4: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = v4bytes(s.slice(lastColon + 1));
    if (!v4) return undefined;
    tailV4 = v4;
    head = s.slice(0, lastColon + 1) + '0:0';
  }
  const [l, r] = head.includes('::') ? head.split('::') : [head, undefined];
  const left = l ? l.split(':') : [];
  const right = r ? r.split(':') : [];
  const fill = r === undefined ? 0 : 8 - left.length - right.length;
  const groups = [...left, ...Array<string>(fill).fill('0'), ...right].map((g) => parseInt(g, 16));
  if (groups.length !== 8 || groups.some((g) => Number.isNaN(g))) return undefined;
  const bytes = groups.flatMap((g) => [g >> 8, g & 255]);
  if (tailV4.length) bytes.splice(12, 4, ...tailV4);
  return bytes;
}

function format(bytes: number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] << 8) | bytes[i + 1]).toString(16));
  return new URL(`http://[${groups.join(':')}]`).hostname.slice(1, -1);
}

function parseAddr(s: string): Addr | string {
  if (isIPv4(s) || /^[0-9.]+$/.test(s)) {
    const b = v4bytes(s);
    return b ? { bytes: b, text: format(b) } : `IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): unexpected character`;
  }
  if (s.includes('%')) return `IP address with zone value is not allowed`;
  const b = v6bytes(s);
  if (!b) return `IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): unable to parse IP`;
  if (b.slice(0, 10).every((x) => x === 0) && b[10] === 255 && b[11] === 255) return 'IPv4-mapped IPv6 address is not allowed';
  return { bytes: b, text: format(b) };
}

function parseNet(s: string): Net | string {
  const slash = s.indexOf('/');
  if (slash < 0) return `network address parse error during conversion from string: netip.ParsePrefix("${s}"): no '/'`;
  const a = parseAddr(s.slice(0, slash));
  if (typeof a === 'string') return a;
  const bitsText = s.slice(slash + 1);
  const bits = Number(bitsText);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsText) || bits > a.bytes.length * 8) return `network address parse error during conversion from string: netip.ParsePrefix("${s}"): bad bits after slash: "${bitsText}"`;
  return { addr: a, bits };
}

const ipValue = (a: Addr) => makeOpaque('ip', a.text, a);
const netValue = (n: Net) => makeOpaque('cidr', `${n.addr.text}/${n.bits}`, n);
const addr = (v: ReflectMessage) => opaquePayload<Addr>(v)!;
const net = (v: ReflectMessage) => opaquePayload<Net>(v)!;

function mask(bytes: number[], bits: number): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
}

function contains(n: Net, a: Addr): boolean {
  if (a.bytes.length !== n.addr.bytes.length) return false;
  const x = mask(n.addr.bytes, n.bits);
  const y = mask(a.bytes, n.bits);
  return x.every((b, i) => b === y[i]);
}

function must<T>(r: T | string): T {
  if (typeof r === 'string') throw new Error(r);
  return r;
}

const isV4 = (a: Addr) => a.bytes.length === 4;
const b = (a: Addr) => a.bytes;

export const netFuncs: CelFunc[] = [
  celFunc('ip', [STRING], IP, (s) => ipValue(must(parseAddr(s)))),
  celFunc('isIP', [STRING], BOOL, (s) => typeof parseAddr(s) !== 'string'),
  // Canonical: exactly how the address prints (lower-case, zeros compressed as Go's netip does).
  celFunc('ip.isCanonical', [STRING], BOOL, (s) => must(parseAddr(s)).text === s),
  celFunc('string', [IP], STRING, (v) => addr(v).text),
  celMethod('family', IP, [], INT, function () { return isV4(addr(this)) ? 4n : 6n; }),
  celMethod('isUnspecified', IP, [], BOOL, function () { return b(addr(this)).every((x) => x === 0); }),
  celMethod('isLoopback', IP, [], BOOL, function () {
    const a = addr(this);
    return isV4(a) ? a.bytes[0] === 127 : a.bytes.slice(0, 15).every((x) => x === 0) && a.bytes[15] === 1;
  }),
  celMethod('isLinkLocalMulticast', IP, [], BOOL, function () {
    const a = addr(this);
    return isV4(a) ? a.bytes[0] === 224 && a.bytes[1] === 0 && a.bytes[2] === 0 : a.bytes[0] === 0xff && (a.bytes[1] & 0x0f) === 0x02;
  }),
  celMethod('isLinkLocalUnicast', IP, [], BOOL, function () {
    const a = addr(this);
    return isV4(a) ? a.bytes[0] === 169 && a.bytes[1] === 254 : a.bytes[0] === 0xfe && (a.bytes[1] & 0xc0) === 0x80;
  }),
  celMethod('isGlobalUnicast', IP, [], BOOL, function () {
    const a = addr(this);
    const x = a.bytes;
    if (isV4(a)) {
      if (x.every((v) => v === 255)) return false;
      return !(x.every((v) => v === 0) || x[0] === 127 || (x[0] === 169 && x[1] === 254) || x[0] >= 224);
    }
    return !(x.every((v) => v === 0) || (x.slice(0, 15).every((v) => v === 0) && x[15] === 1) || x[0] === 0xff || (x[0] === 0xfe && (x[1] & 0xc0) === 0x80));
  }),
  celFunc('cidr', [STRING], CIDR, (s) => netValue(must(parseNet(s)))),
  celFunc('isCIDR', [STRING], BOOL, (s) => typeof parseNet(s) !== 'string'),
  celFunc('string', [CIDR], STRING, (v) => `${net(v).addr.text}/${net(v).bits}`),
  celMethod('containsIP', CIDR, [IP], BOOL, function (a) { return contains(net(this), addr(a)); }),
  celMethod('containsIP', CIDR, [STRING], BOOL, function (s) { return contains(net(this), must(parseAddr(s))); }),
  celMethod('containsCIDR', CIDR, [CIDR], BOOL, function (o) {
    const n = net(this);
    const m = net(o);
    return m.bits >= n.bits && contains(n, m.addr);
  }),
  celMethod('containsCIDR', CIDR, [STRING], BOOL, function (s) {
    const n = net(this);
    const m = must(parseNet(s));
    return m.bits >= n.bits && contains(n, m.addr);
  }),
  celMethod('ip', CIDR, [], IP, function () { return ipValue(net(this).addr); }),
  celMethod('masked', CIDR, [], CIDR, function () {
    const n = net(this);
    const bytes = mask(n.addr.bytes, n.bits);
    return netValue({ addr: { bytes, text: format(bytes) }, bits: n.bits });
  }),
  celMethod('prefixLength', CIDR, [], INT, function () { return BigInt(net(this).bits); }),
];
