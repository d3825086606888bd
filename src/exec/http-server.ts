// HTTP/1.1 from a byte stream (a port-forward connection): requests parsed with bounded headers and bodies,
// keep-alive as HTTP/1.1 and 1.0 define it, pipelined requests answered in order, malformed input answered with
// 400 (or 431/413/501) and the connection closed.
import type { Sink } from './types.js';
import { statusText, type HttpRequest, type HttpResponse } from './responder.js';

export const maxHeaderBytes = 16 * 1024;
export const maxBodyBytes = 1 << 20;
export const maxRequestsPerConnection = 1000;

class Reader {
  private buf = Buffer.alloc(0);
  private done = false;
  private readonly it: AsyncIterator<Buffer>;
  constructor(src: AsyncIterable<Buffer>) {
    this.it = src[Symbol.asyncIterator]();
  }
  get buffered(): Buffer {
    return this.buf;
  }
  get ended(): boolean {
    return this.done && this.buf.length === 0;
  }
  async more(): Promise<boolean> {
    if (this.done) return false;
    const r = await this.it.next();
    if (r.done) {
      this.done = true;
      return false;
    }
    this.buf = this.buf.length ? Buffer.concat([this.buf, r.value]) : Buffer.from(r.value);
    return true;
  }
  take(n: number): Buffer {
    const out = this.buf.subarray(0, n);
    this.buf = this.buf.subarray(n);
    return out;
  }
  async close(): Promise<void> {
    this.done = true;
    await this.it.return?.();
  }
}

function writeResponse(out: Sink, res: HttpResponse, close: boolean): void {
  const lines = [`HTTP/1.1 ${res.status} ${statusText[res.status] ?? 'Status'}`];
  for (const [k, v] of res.headers) lines.push(`${k}: ${v}`);
  if (close) lines.push('Connection: close');
  out.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), res.body]));
}

function plain(status: number, text: string): HttpResponse {
  const body = Buffer.from(text);
  return { status, headers: [['Content-Type', 'text/plain; charset=utf-8'], ['Content-Length', String(body.length)]], body };
}

/** Parses a request head; a string is why it is malformed. */
function parseHead(head: string): { method: string; path: string; version: string; headers: Map<string, string> } | string {
  const lines = head.split('\r\n');
  const m = /^([A-Z]{1,20}) (\S{1,8192}) HTTP\/(1\.[01])$/.exec(lines[0]);
  if (!m) return 'malformed request line';
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const hm = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!hm || /[\0\r\n]/.test(hm[2])) return 'malformed header';
    const k = hm[1].toLowerCase();
    headers.set(k, headers.has(k) ? `${headers.get(k)}, ${hm[2]}` : hm[2]);
    if (headers.size > 100) return 'too many headers';
  }
  return { method: m[1], path: m[2], version: m[3], headers };
}

/** Serves HTTP/1.1 on one connection until the client closes it, asks to, or errs. */
export async function serveHttp(input: AsyncIterable<Buffer>, output: Sink, handler: (req: HttpRequest) => HttpResponse, signal: AbortSignal): Promise<void> {
  const r = new Reader(input);
  try {
    for (let n = 0; n < maxRequestsPerConnection && !signal.aborted; n++) {
      let end = -1;
      for (;;) {
        end = r.buffered.indexOf('\r\n\r\n');
        if (end >= 0 || r.buffered.length > maxHeaderBytes) break;
        if (!(await r.more())) break;
      }
      if (end < 0) {
        if (r.buffered.length > maxHeaderBytes) writeResponse(output, plain(431, 'request header fields too large\n'), true);
        else if (r.buffered.length) writeResponse(output, plain(400, 'incomplete request\n'), true);
        return;
      }
      if (end > maxHeaderBytes) {
        writeResponse(output, plain(431, 'request header fields too large\n'), true);
        return;
      }
      const head = parseHead(r.take(end + 4).subarray(0, end).toString('latin1').replace(/^(\r\n)+/, ''));
      if (typeof head === 'string') {
        writeResponse(output, plain(400, `${head}\n`), true);
        return;
      }
      if (head.headers.has('transfer-encoding')) {
        writeResponse(output, plain(501, 'chunked request bodies are not supported\n'), true);
        return;
      }
      const lenText = head.headers.get('content-length') ?? '0';
      if (!/^\d{1,10}$/.test(lenText)) {
        writeResponse(output, plain(400, 'invalid content-length\n'), true);
        return;
      }
      const len = Number(lenText);
      if (len > maxBodyBytes) {
        writeResponse(output, plain(413, 'request body too large\n'), true);
        return;
      }
      while (r.buffered.length < len) {
        if (!(await r.more())) {
          writeResponse(output, plain(400, 'incomplete body\n'), true);
          return;
        }
      }
      const body = r.take(len);
      const conn = (head.headers.get('connection') ?? '').toLowerCase();
      const close = head.version === '1.0' ? !conn.includes('keep-alive') : conn.includes('close');
      const res = handler({ method: head.method, path: head.path, headers: head.headers, body });
      if (head.version === '1.0' && !close) res.headers.push(['Connection', 'keep-alive']);
      writeResponse(output, res, close);
      if (close) return;
    }
  } finally {
    await r.close().catch(() => undefined);
  }
}
