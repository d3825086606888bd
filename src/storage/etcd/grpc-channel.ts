// gRPC over one HTTP/2 connection with Node's http2 module, as the etcd store needs it: unary calls (transactions,
// ranges, compactions) and one bidirectional stream (the watch). A call is a POST of length-prefixed messages; the
// answer is messages and a `grpc-status` trailer. Far less work per call than a general gRPC stack, which matters for
// a write path that makes one call per write. The connection is made on first use and again after it fails, trying
// the endpoints in turn.
import http2, { type ClientHttp2Session } from 'node:http2';

/** The largest answer accepted (a page of a range, at most; etcd's own limit on a request is 1.5 MiB). */
const maxAnswerBytes = 256 * 1024 * 1024;
/** The receive window of the connection and of each stream (HTTP/2's default is 64 KiB). */
const windowBytes = 16 * 1024 * 1024;
/** Calls in flight at once on the connection (each is a stream). */
const maxConcurrentCalls = 10_000;

export class GrpcCallError extends Error {
  constructor(message: string, readonly code: number) {
    super(message);
  }
}

function frame(msg: Uint8Array): Buffer {
  const b = Buffer.allocUnsafe(5 + msg.byteLength);
  b[0] = 0;
  b.writeUInt32BE(msg.byteLength, 1);
  b.set(msg, 5);
  return b;
}

/** The message of a whole answer body (one length-prefixed, uncompressed message). */
function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcCallError('the answer holds no message', 13);
  if (body[0] !== 0) throw new GrpcCallError('the answer is compressed', 12);
  const len = body.readUInt32BE(1);
  if (len > body.length - 5) throw new GrpcCallError('the answer is cut short', 13);
  return body.subarray(5, 5 + len);
}

function statusOf(headers: http2.IncomingHttpHeaders): { code: number; message: string } | undefined {
  const raw = headers['grpc-status'];
  if (raw === undefined) return undefined;
  const code = Number(raw);
  const m = headers['grpc-message'];
  let message = typeof m === 'string' ? m : '';
  try {
    message = decodeURIComponent(message);
  } catch {
    /* not percent-encoded after all */
  }
  return { code, message };
}

/** A bidirectional stream: messages are written with `write`; `cancel` ends it from this side. */
export interface GrpcStream {
  write(message: Uint8Array): void;
  cancel(): void;
}

export interface StreamHandlers {
  message(m: Buffer): void;
  /** Called once, when the stream ends for any reason but `cancel`: etcd's status, or what failed. */
  end(why: string): void;
}

/** Splits a stream's body into its length-prefixed messages, across chunks. */
class MessageReader {
  private pending: Buffer[] = [];
  private size = 0;

  /** The messages completed by `chunk`; throws on a compressed or oversized message. */
  push(chunk: Buffer): Buffer[] {
    this.pending.push(chunk);
    this.size += chunk.length;
    const out: Buffer[] = [];
    for (;;) {
      if (this.size < 5) return out;
      let buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.size);
      if (buf[0] !== 0) throw new GrpcCallError('a message is compressed', 12);
      const len = buf.readUInt32BE(1);
      if (len > maxAnswerBytes) throw new GrpcCallError('a message is too large', 8);
      if (this.size < 5 + len) {
        this.pending = [buf];
        return out;
      }
      out.push(buf.subarray(5, 5 + len));
      buf = buf.subarray(5 + len);
      this.pending = buf.length ? [buf] : [];
      this.size = buf.length;
    }
  }
}

export class GrpcChannel {
  private session: ClientHttp2Session | undefined;
  private next = 0;
  private inFlight = 0;
  private closed = false;

  constructor(private readonly endpoints: string[]) {}

  private connect(): ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const url = this.endpoints[this.next++ % this.endpoints.length];
    // Wide flow-control windows: the watch brings every object written, and waiting for window updates would delay it.
    const s = http2.connect(url, { settings: { initialWindowSize: windowBytes } });
    s.once('connect', () => s.setLocalWindowSize(windowBytes));
    s.on('error', () => this.drop(s));
    s.on('goaway', () => this.drop(s));
    s.on('close', () => this.drop(s));
    // Idle connections must not keep the process alive.
    s.unref();
    this.session = s;
    return s;
  }

  private drop(s: ClientHttp2Session): void {
    if (this.session === s) this.session = undefined;
    if (!s.destroyed) s.destroy();
  }

  /** Calls `path` (`/package.Service/Method`) with the encoded request; resolves with the encoded answer. */
  call(path: string, request: Uint8Array, timeoutMs: number): Promise<Buffer> {
    if (this.closed) return Promise.reject(new GrpcCallError('the etcd client is closed', 1));
    if (this.inFlight >= maxConcurrentCalls) return Promise.reject(new GrpcCallError('too many etcd calls in flight', 8));
    let session: ClientHttp2Session;
    let stream: http2.ClientHttp2Stream;
    try {
      session = this.connect();
      stream = session.request({
        ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', 'grpc-timeout': `${Math.max(1, Math.ceil(timeoutMs))}m`,
      });
    } catch (err) {
      return Promise.reject(new GrpcCallError(err instanceof Error ? err.message : String(err), 14));
    }
    this.inFlight++;
    return new Promise<Buffer>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let status: { code: number; message: string } | undefined;
      let settled = false;
      const settle = (err: Error | undefined, value?: Buffer) => {
        if (settled) return;
        settled = true;
        this.inFlight--;
        clearTimeout(timer);
        if (err) {
          if (!stream.closed) stream.close(http2.constants.NGHTTP2_CANCEL);
          reject(err);
        } else resolve(value!);
      };
      const timer = setTimeout(() => settle(new GrpcCallError('context deadline exceeded', 4)), timeoutMs);
      stream.on('response', (h) => {
        const httpStatus = Number(h[':status']);
        if (httpStatus !== 200) settle(new GrpcCallError(`etcd answered HTTP ${httpStatus}`, 14));
        status = statusOf(h) ?? status; // a trailers-only answer carries its status here
      });
      stream.on('trailers', (h) => {
        status = statusOf(h) ?? status;
      });
      stream.on('data', (d: Buffer) => {
        size += d.length;
        if (size > maxAnswerBytes) return settle(new GrpcCallError('the answer is too large', 8));
        chunks.push(d);
      });
      stream.on('end', () => {
        if (!status) return settle(new GrpcCallError('the answer carries no status', 13));
        if (status.code !== 0) return settle(new GrpcCallError(status.message || `gRPC status ${status.code}`, status.code));
        try {
          settle(undefined, unframe(Buffer.concat(chunks, size)));
        } catch (err) {
          settle(err instanceof Error ? err : new Error(String(err)));
        }
      });
      stream.on('error', (err) => {
        if (session === this.session && session.destroyed) this.drop(session);
        settle(new GrpcCallError(err.message, 14));
      });
      // Every call's stream closes, most after the answer settled it: the error is made only when it did not.
      stream.on('close', () => {
        if (!settled) settle(new GrpcCallError('the call was closed before its answer', 14));
      });
      stream.end(frame(request));
    });
  }

  /** Opens a bidirectional stream on `path`; its messages and its end go to `handlers`. */
  stream(path: string, handlers: StreamHandlers): GrpcStream {
    let ended = false;
    const end = (why: string) => {
      if (ended) return;
      ended = true;
      handlers.end(why);
    };
    let stream: http2.ClientHttp2Stream | undefined;
    try {
      if (this.closed) throw new Error('the etcd client is closed');
      stream = this.connect().request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers' });
    } catch (err) {
      queueMicrotask(() => end(err instanceof Error ? err.message : String(err)));
      return { write: () => {}, cancel: () => { ended = true; } };
    }
    const s = stream;
    const reader = new MessageReader();
    let status: { code: number; message: string } | undefined;
    s.on('response', (h) => {
      status = statusOf(h) ?? status;
    });
    s.on('trailers', (h) => {
      status = statusOf(h) ?? status;
    });
    s.on('data', (chunk: Buffer) => {
      if (ended) return;
      let messages: Buffer[];
      try {
        messages = reader.push(chunk);
      } catch (err) {
        s.close(http2.constants.NGHTTP2_CANCEL);
        return end(err instanceof Error ? err.message : String(err));
      }
      for (const m of messages) if (!ended) handlers.message(m);
    });
    const finished = () => end(status && status.code !== 0 ? status.message || `gRPC status ${status.code}` : 'the stream ended');
    s.on('error', (err) => end(err.message));
    // The server ending its side ends the call (our side is closed with it); 'close' covers a reset or a lost connection.
    s.on('end', () => {
      finished();
      if (!s.closed) s.close();
    });
    s.on('close', finished);
    return {
      write: (m) => {
        if (!ended && !s.closed) s.write(frame(m));
      },
      cancel: () => {
        ended = true;
        if (!s.closed) s.close(http2.constants.NGHTTP2_CANCEL);
      },
    };
  }

  close(): void {
    this.closed = true;
    const s = this.session;
    this.session = undefined;
    if (s && !s.destroyed) s.destroy();
  }
}
