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

const rvPattern = /"resourceVersion":"(\d+)"/;

/**
 * Opens a watch that reads everything; `onEvent(rv, t)` is called per event with its arrival time
 * (performance.now() when its last bytes arrived). Resolves once the response head is in.
 */
export function readingWatch(url: string, path: string, onEvent?: (rv: number, t: number) => void): Promise<RawWatch> {
  const { host, port } = hostPort(url);
  return new Promise((resolve, reject) => {
    const s = connect(port, host);
    const w: RawWatch = { socket: s, events: 0, bytes: 0, closed: false, endedCleanly: false };
    let head = true;
    let pending: Buffer = Buffer.alloc(0); // unparsed framing bytes
    let chunkLeft = 0; // data bytes left in the current chunk
    let line = ''; // the event line being assembled
    const onLine = (text: string, t: number) => {
      if (text.startsWith('{"type":"BOOKMARK"') || text.startsWith('{"type":"ERROR"')) return;
      w.events++;
      if (onEvent) onEvent(Number(rvPattern.exec(text)?.[1] ?? -1), t);
    };
    s.on('data', (data: Buffer) => {
      const t = performance.now();
      w.bytes += data.length;
      let buf: Buffer = pending.length ? Buffer.concat([pending, data]) : data;
      pending = Buffer.alloc(0);
      if (head) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return void (pending = buf);
        const status = buf.subarray(0, buf.indexOf('\r\n')).toString('latin1');
        if (!/^HTTP\/1\.1 200/.test(status)) {
          s.destroy();
          return reject(new Error(`watch ${path}: ${status}`));
        }
        head = false;
        buf = buf.subarray(end + 4);
        resolve(w);
      }
      let i = 0;
      while (i < buf.length) {
        if (chunkLeft > 0) {
          const take = Math.min(chunkLeft, buf.length - i);
          const piece = buf.toString('latin1', i, i + take);
          i += take;
          chunkLeft -= take;
          let from = 0;
          let nl: number;
          while ((nl = piece.indexOf('\n', from)) >= 0) {
            onLine(line + piece.slice(from, nl), t);
            line = '';
            from = nl + 1;
          }
          line += piece.slice(from);
          if (chunkLeft === 0) chunkLeft = -2; // the CRLF after the data
          continue;
        }
        if (chunkLeft < 0) {
          const skip = Math.min(-chunkLeft, buf.length - i);
          i += skip;
          chunkLeft += skip;
          continue;
        }
        const crlf = buf.indexOf('\r\n', i);
        if (crlf < 0) return void (pending = buf.subarray(i));
        const size = parseInt(buf.toString('latin1', i, crlf), 16);
        i = crlf + 2;
        if (size === 0) {
          w.endedCleanly = true;
          return;
        }
        chunkLeft = size;
      }
    });
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
