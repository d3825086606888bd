// The KEDA scalers' outbound request: one GET with a deadline and a bound on the body, off the event loop, through
// the outbound guard (outbound-guard.ts) at every hop: the URL's host, the addresses its name resolves to (checked
// by the connection's own lookup), and every redirect's target. Errors read as Go's net/http client prints them,
// from a short fixed list, so a failure tells no more about the far side than upstream's scaler does.
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { checkHost, guardedLookup, RefusedAddress, type Resolver } from './outbound-guard.js';

export const defaultTimeoutMs = 3000;
export const maxBodyBytes = 1 << 20;
/** Go's http.Client follows at most 10 redirects. */
const maxRedirects = 10;

export interface HttpResult {
  status: number;
  path: string;
  body: string;
}

export interface HttpGetOptions {
  timeoutMs?: number;
  maxBytes?: number;
  /** Name resolution (tests give their own); its answers are checked before any connection. */
  resolve?: Resolver;
}

/** Go's text for a failed request, never the far side's own words. */
function goError(err: unknown, u: URL): string {
  if (err instanceof RefusedAddress) return err.message;
  const code = (err as { code?: string }).code ?? '';
  if (code === 'ECONNREFUSED') return `dial tcp ${u.host}: connect: connection refused`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return `dial tcp: lookup ${u.hostname}: no such host`;
  if (code === 'EHOSTUNREACH') return `dial tcp ${u.host}: connect: no route to host`;
  if (code === 'ENETUNREACH') return `dial tcp ${u.host}: connect: network is unreachable`;
  if (code === 'ERR_INVALID_HTTP_TOKEN' || code === 'ERR_INVALID_CHAR') return 'net/http: invalid header field name or value';
  if (code.startsWith('HPE_')) return 'net/http: HTTP/1.x transport connection broken: malformed HTTP response';
  if (code.startsWith('ERR_TLS') || code.startsWith('ERR_SSL') || code === 'EPROTO' || /CERT|SIGNATURE|SELF_SIGNED/.test(code)) return 'tls: failed to verify certificate';
  return 'EOF';
}

function getOnce(u: URL, headers: Record<string, string>, signal: AbortSignal, resolve: Resolver | undefined): Promise<IncomingMessage> {
  checkHost(u.hostname);
  const mod = u.protocol === 'https:' ? https : http;
  return new Promise((done, fail) => {
    const req = mod.request(u, { method: 'GET', headers, signal, agent: false, lookup: guardedLookup(resolve) }, done);
    req.on('error', fail);
    req.end();
  });
}

async function readBody(res: IncomingMessage, maxBytes: number, url: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      res.destroy();
      throw new Error(`Get ${JSON.stringify(url)}: response body larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export async function httpGet(url: string, headers: Record<string, string>, opts: HttpGetOptions = {}): Promise<HttpResult> {
  const { timeoutMs = defaultTimeoutMs, maxBytes = maxBodyBytes, resolve } = opts;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error(`parse ${JSON.stringify(url)}: invalid URL`);
  }
  const signal = AbortSignal.timeout(Math.max(1, timeoutMs));
  let sent = { ...headers };
  for (let hop = 0; ; hop++) {
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`Get ${JSON.stringify(u.href)}: unsupported protocol scheme ${JSON.stringify(u.protocol.replace(/:$/, ''))}`);
    let res: IncomingMessage;
    try {
      res = await getOnce(u, sent, signal, resolve);
    } catch (err) {
      if (signal.aborted) throw new Error(`Get ${JSON.stringify(u.href)}: context deadline exceeded (Client.Timeout exceeded while awaiting headers)`);
      throw new Error(`Get ${JSON.stringify(u.href)}: ${goError(err, u)}`);
    }
    const location = res.headers.location;
    if ([301, 302, 303, 307, 308].includes(res.statusCode ?? 0) && location) {
      res.resume();
      if (hop + 1 >= maxRedirects) throw new Error(`Get ${JSON.stringify(location)}: stopped after ${maxRedirects} redirects`);
      let next: URL;
      try {
        next = new URL(location, u);
      } catch {
        throw new Error(`Get ${JSON.stringify(u.href)}: failed to parse Location header ${JSON.stringify(location)}`);
      }
      // As Go's client: credentials go to the same host only.
      if (next.host !== u.host) {
        sent = { ...sent };
        for (const k of Object.keys(sent)) if (/^(authorization|cookie)$/i.test(k)) delete sent[k];
      }
      u = next;
      continue;
    }
    try {
      return { status: res.statusCode ?? 0, path: u.pathname, body: await readBody(res, maxBytes, u.href) };
    } catch (err) {
      if (signal.aborted) throw new Error(`Get ${JSON.stringify(u.href)}: context deadline exceeded (Client.Timeout exceeded while reading body)`);
      if ((err as Error).message.includes('response body larger')) throw err;
      throw new Error(`Get ${JSON.stringify(u.href)}: ${goError(err, u)}`);
    }
  }
}
