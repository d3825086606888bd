// Watch streams on raw sockets, for figures with many watchers: a light reader that de-chunks the response and
// notes each event's resourceVersion and arrival time (no JSON parse), and a reader that never reads.
import { connect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';

export interface RawWatch {
  socket: Socket;
  /** Events received (BOOKMARK and ERROR excluded). */
  events: number;
  /** Bytes received, framing included. */
  bytes: number;
  /** Set once the server closed or reset the connection. */
  closed: boolean;
  /** The stream ended with the final chunk (a graceful end), rather than a reset or a cut. */
  endedCleanly: boolean;
}

function hostPort(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) };
}

function request(s: Socket, url: string, path: string): void {
  const { host, port } = hostPort(url);
  s.write(`GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nAccept: application/json\r\n\r\n`);
}

const rvNeedle = Buffer.from('"resourceVersion":"');
/** Every line starts with `{"type":"`; the letter after it tells events (ADDED, MODIFIED, DELETED) from the rest. */
const typeAt = '{"type":"'.length;
const [bookmarkB, errorE] = ['B'.charCodeAt(0), 'E'.charCodeAt(0)];
/** One read buffer for every reading watch: each read is parsed before the next one arrives. */
const readBuffer = Buffer.alloc(256 * 1024);

/**
 * Opens a watch that reads everything; `onEvent(rv, t)` is called per event with its arrival time
 * (performance.now() when its last bytes arrived). Resolves once the response head is in. The socket reads into
 * a shared buffer (net's `onread`), bypassing the stream machinery, and lines are scanned as bytes, so that
 * a thousand of them cost the load generator little.
 */
export function readingWatch(url: string, path: string, onEvent?: (rv: number, t: number) => void): Promise<RawWatch> {
  const { host, port } = hostPort(url);
  return new Promise((resolve, reject) => {
    let head: Buffer | undefined = Buffer.alloc(0); // the response head until it is complete
    let state: 'size' | 'data' | 'crlf' = 'size';
    let size = 0; // hex digits read so far, then data bytes left in the chunk
    let skip = 0; // CRLF bytes still to skip
    let sawSizeDigit = false;
    let carry: Buffer | undefined; // the start of a line that continues in a later chunk
    const onLine = (line: Buffer, t: number) => {
      const c = line[typeAt];
      if (c === bookmarkB || c === errorE) return;
      w.events++;
      if (!onEvent) return;
      const k = line.indexOf(rvNeedle);
      let rv = -1;
      if (k >= 0) {
        rv = 0;
        for (let j = k + rvNeedle.length; j < line.length && line[j] >= 48 && line[j] <= 57; j++) rv = rv * 10 + line[j] - 48;
      }
      onEvent(rv, t);
    };
    const data = (buf: Buffer, from: number, to: number, t: number) => {
      let p = from;
      while (p < to) {
        const nl = buf.indexOf(10, p);
        if (nl < 0 || nl >= to) {
          const rest = Buffer.from(buf.subarray(p, to));
          carry = carry ? Buffer.concat([carry, rest]) : rest;
          return;
        }
        onLine(carry ? Buffer.concat([carry, buf.subarray(p, nl)]) : buf.subarray(p, nl), t);
        carry = undefined;
        p = nl + 1;
      }
    };
    const onRead = (nread: number, shared: Buffer): boolean => {
      const t = performance.now();
      w.bytes += nread;
      let buf = shared.subarray(0, nread);
      if (head) {
        const all: Buffer = Buffer.concat([head, buf]);
        const end = all.indexOf('\r\n\r\n');
        if (end < 0) {
          head = all;
          return true;
        }
        const status = all.subarray(0, all.indexOf('\r\n')).toString('latin1');
        head = undefined;
        if (!/^HTTP\/1\.1 200/.test(status)) {
          s.destroy();
          reject(new Error(`watch ${path}: ${status}`));
          return false;
        }
        resolve(w);
        buf = all.subarray(end + 4);
      }
      let i = 0;
      while (i < buf.length) {
        if (state === 'data') {
          const take = Math.min(size, buf.length - i);
          data(buf, i, i + take, t);
          i += take;
          size -= take;
          if (size === 0) [state, skip] = ['crlf', 2];
        } else if (state === 'crlf') {
          const n = Math.min(skip, buf.length - i);
          i += n;
          skip -= n;
          if (skip === 0) [state, size, sawSizeDigit] = ['size', 0, false];
        } else {
          const c = buf[i++];
          if (c === 13) continue; // the size line's CR
          if (c !== 10) {
            size = size * 16 + parseInt(String.fromCharCode(c), 16);
            sawSizeDigit = true;
            continue;
          }
          if (!sawSizeDigit) continue;
          if (size === 0) {
            w.endedCleanly = true;
            return true;
          }
          state = 'data';
        }
      }
      return true;
    };
    const s = connect({ port, host, onread: { buffer: readBuffer, callback: onRead } });
    const w: RawWatch = { socket: s, events: 0, bytes: 0, closed: false, endedCleanly: false };
    s.on('error', (e) => { if (head) reject(e); });
    s.on('close', () => { w.closed = true; if (head) reject(new Error(`watch ${path}: closed before the response`)); });
    s.on('connect', () => request(s, url, path));
  });
}

/**
 * Opens a watch and, once the response head is in (so the server has started the watch), never reads from it
 * again: the socket is paused and the server's events pile up in the kernel's buffers, then at the server.
 */
export function neverReadingWatch(url: string, path: string): Promise<RawWatch> {
  const { host, port } = hostPort(url);
  return new Promise((resolve, reject) => {
    const s = connect(port, host);
    const w: RawWatch = { socket: s, events: 0, bytes: 0, closed: false, endedCleanly: false };
    let head = '';
    const onData = (d: Buffer) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      s.pause();
      s.off('data', onData);
      if (!/^HTTP\/1\.1 200/.test(head)) return reject(new Error(`watch ${path}: ${head.slice(0, head.indexOf('\r\n'))}`));
      resolve(w);
    };
    s.on('data', onData);
    s.on('error', () => {});
    s.once('error', reject);
    s.on('close', () => { w.closed = true; });
    s.on('connect', () => request(s, url, path));
  });
}
