// Kubernetes' URL library: url(s), isURL(s) and the URL getters. Accepts what Go's url.ParseRequestURI
// accepts: an absolute URL or an absolute path.
import { celFunc, celMethod, CelScalar, listType, mapType, type CelFunc } from '@bufbuild/cel';
import type { ReflectMessage } from '@bufbuild/protobuf/reflect';
import { makeOpaque, opaquePayload, opaqueTypes } from './opaque.js';

const { STRING, BOOL } = CelScalar;
const U = opaqueTypes.url;

interface Parts { scheme: string; host: string; hostname: string; port: string; path: string; query: string }

function parseUrl(s: string): Parts | undefined {
  if (s === '' || /[\s\x00-\x1f]/.test(s)) return undefined;
  if (s.startsWith('/')) {
    const q = s.indexOf('?');
    return { scheme: '', host: '', hostname: '', port: '', path: q < 0 ? s : s.slice(0, q), query: q < 0 ? '' : s.slice(q + 1) };
  }
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(s);
  if (!m) return undefined;
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    return undefined;
  }
  const rest = s.slice(m[0].length);
  const authority = rest.startsWith('//') ? rest.slice(2).split(/[/?#]/)[0].replace(/^.*@/, '') : '';
  const bracket = authority.startsWith('[');
  const portMatch = bracket ? /\]:([0-9]*)$/.exec(authority) : /:([0-9]*)$/.exec(authority);
  const port = portMatch ? portMatch[1] : '';
  const hostname = (portMatch ? authority.slice(0, authority.length - portMatch[0].length + (bracket ? 1 : 0)) : authority).replace(/^\[|\]$/g, '');
  const pathStart = rest.startsWith('//') ? rest.indexOf('/', 2) : 0;
  const afterAuth = pathStart < 0 ? '' : rest.slice(pathStart);
  const path = afterAuth.split(/[?#]/)[0];
  return { scheme: m[1], host: authority, hostname, port, path: path || (u.pathname === '/' && !rest.startsWith('//') ? '' : path), query: u.search.replace(/^\?/, '') };
}

const parts = (v: ReflectMessage) => opaquePayload<Parts>(v)!;

function query(q: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [k, v] of new URLSearchParams(q)) out.set(k, [...(out.get(k) ?? []), v]);
  return out;
}

export const urlFuncs: CelFunc[] = [
  celFunc('url', [STRING], U, (s) => {
    const p = parseUrl(s);
    if (!p) throw new Error(`URL parse error during conversion from string: parse "${s}": invalid URI for request`);
    return makeOpaque('url', s, p);
  }),
  celFunc('isURL', [STRING], BOOL, (s) => parseUrl(s) !== undefined),
  celFunc('string', [U], STRING, (v) => String((v.message as unknown as { v: string }).v)),
  celMethod('getScheme', U, [], STRING, function () { return parts(this).scheme; }),
  celMethod('getHost', U, [], STRING, function () { return parts(this).host; }),
  celMethod('getHostname', U, [], STRING, function () { return parts(this).hostname; }),
  celMethod('getPort', U, [], STRING, function () { return parts(this).port; }),
  celMethod('getEscapedPath', U, [], STRING, function () { return parts(this).path; }),
  celMethod('getQuery', U, [], mapType(STRING, listType(STRING)), function () { return query(parts(this).query); }),
];
