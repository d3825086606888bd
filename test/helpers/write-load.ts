// Creates kept in flight against a server that is about to stop: workers on keep-alive connections and workers that
// open a new connection for each request, over raw sockets so the test knows exactly whether a request had left the
// client (handed whole to the kernel) before the stop began, and how much of an answer came back.
import { connect, type Socket } from 'node:net';

export interface Outcome {
  name: string;
  /** The whole request was handed to the kernel before `stopping()` was called. */
  sentBefore: boolean;
  keepAlive: boolean;
  status?: number;
  connectionClose?: boolean;
  body?: string;
  /** Set when no complete answer came: the socket error or end, and how many answer bytes had arrived. */
  error?: string;
  partialBytes?: number;
}

interface Answer {
  status: number;
  headers: Map<string, string>;
  body: string;
}

/** Reads answers off one socket, one at a time (no pipelining): chunked or Content-Length bodies. */
class AnswerReader {
  private buf = Buffer.alloc(0);
  private waiting?: { resolve(a: Answer): void; reject(e: Error & { partialBytes?: number }): void };
  private failed?: string;

  constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.tryParse();
    });
    socket.on('error', (e: NodeJS.ErrnoException) => this.fail(e.code ?? e.message));
    socket.on('close', () => this.fail('closed'));
  }

  next(): Promise<Answer> {
    if (this.failed) return Promise.reject(Object.assign(new Error(this.failed), { partialBytes: this.buf.length }));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.tryParse();
    });
  }

  private fail(why: string): void {
    this.failed ??= why;
    const w = this.waiting;
    this.waiting = undefined;
    w?.reject(Object.assign(new Error(why), { partialBytes: this.buf.length }));
  }

  private tryParse(): void {
    if (!this.waiting) return;
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const lines = this.buf.subarray(0, end).toString('latin1').split('\r\n');
    const status = Number(lines[0].split(' ')[1]);
    const headers = new Map<string, string>();
    for (const l of lines.slice(1)) {
      const i = l.indexOf(':');
      headers.set(l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim());
    }
    let rest = this.buf.subarray(end + 4);
    let body: Buffer;
    if (headers.get('transfer-encoding') === 'chunked') {
      const parts: Buffer[] = [];
      for (;;) {
        const nl = rest.indexOf('\r\n');
        if (nl < 0) return;
        const size = parseInt(rest.subarray(0, nl).toString('latin1'), 16);
        if (rest.length < nl + 2 + size + 2) return;
        if (size === 0) {
          rest = rest.subarray(nl + 4);
          break;
        }
        parts.push(rest.subarray(nl + 2, nl + 2 + size));
        rest = rest.subarray(nl + 2 + size + 2);
      }
      body = Buffer.concat(parts);
    } else {
      const len = Number(headers.get('content-length') ?? 0);
      if (rest.length < len) return;
      body = rest.subarray(0, len);
      rest = rest.subarray(len);
    }
    this.buf = rest;
    const w = this.waiting;
    this.waiting = undefined;
    w.resolve({ status, headers, body: body.toString('utf8') });
  }
}

export interface WriteLoad {
  outcomes: Outcome[];
  /** Answers with a 2xx so far. */
  acknowledged(): number;
  /** Requests sent and not yet answered or failed, right now. */
  inFlight(): number;
  /** Call just before the server is told to stop: requests handed over after this count as sent after. */
  stopping(): void;
  /** Settles when every worker has ended (refused, closed, or told to stop). */
  done: Promise<void>;
  /** Ends the workers after their current request. */
  end(): void;
}

/**
 * Starts `keepAlive` workers that send creates back to back on one connection each (a new connection when the
 * server closes theirs) and `fresh` workers that open a new connection (`Connection: close`) per create. Every
 * worker ends when a connection is refused (the listener is gone) or after `end()`; after an answer with
 * `Connection: close` or a failed create it opens another connection.
 */
export function startWriteLoad(port: number, path: string, opts: { keepAlive: number; fresh: number; prefix: string; host?: string }): WriteLoad {
  const host = opts.host ?? '127.0.0.1';
  const outcomes: Outcome[] = [];
  let signalled = false;
  let ended = false;
  let pending = 0;
  let seq = 0;

  const open = () => new Promise<Socket | undefined>((resolve) => {
    const s = connect(port, host);
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined)); // refused before anything was sent
  });

  /** One create on `s`; resolves to whether the connection may carry another. */
  const create = async (s: Socket, reader: AnswerReader, keepAlive: boolean): Promise<boolean> => {
    const name = `${opts.prefix}-${seq++}`;
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });
    const head = `POST ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${keepAlive ? '' : 'Connection: close\r\n'}\r\n`;
    const before = !signalled;
    const o: Outcome = { name, sentBefore: false, keepAlive };
    outcomes.push(o);
    pending++;
    s.write(head + body);
    // Handed whole to the kernel now (nothing left in the socket's own buffer) and before the stop began.
    o.sentBefore = before && s.writableLength === 0 && !s.destroyed;
    try {
      const a = await reader.next();
      o.status = a.status;
      o.body = a.body;
      o.connectionClose = a.headers.get('connection')?.toLowerCase() === 'close';
      return keepAlive && !o.connectionClose;
    } catch (e) {
      o.error = (e as Error).message;
      o.partialBytes = (e as { partialBytes?: number }).partialBytes ?? 0;
      return false;
    } finally {
      pending--;
    }
  };

  const worker = async (keepAlive: boolean): Promise<void> => {
    while (!ended) {
      const s = await open();
      if (!s) return;
      const reader = new AnswerReader(s);
      try {
        while (!ended && (await create(s, reader, keepAlive)));
      } finally {
        s.destroy();
      }
    }
  };

  const workers = [...Array.from({ length: opts.keepAlive }, () => worker(true)), ...Array.from({ length: opts.fresh }, () => worker(false))];
  return {
    outcomes,
    acknowledged: () => outcomes.filter((o) => o.status !== undefined && o.status >= 200 && o.status < 300).length,
    inFlight: () => pending,
    stopping: () => void (signalled = true),
    done: Promise.all(workers).then(() => undefined),
    end: () => void (ended = true),
  };
}

/** What went wrong: requests sent before the stop without a clean answer, answers cut part way, unexpected statuses. */
export function problems(outcomes: Outcome[]): string[] {
  const out: string[] = [];
  for (const o of outcomes) {
    const clean = o.status !== undefined && ((o.status >= 200 && o.status < 300) || ((o.status === 429 || o.status === 503) && /"kind":"Status"/.test(o.body ?? '')));
    if (o.status !== undefined && !clean) out.push(`${o.name}: answered ${o.status} ${o.body?.slice(0, 200)}`);
    else if (o.error && o.sentBefore) out.push(`${o.name} (sent before the stop, ${o.keepAlive ? 'keep-alive' : 'new connection'}): ${o.error} after ${o.partialBytes} answer bytes`);
    else if (o.error && o.partialBytes) out.push(`${o.name}: answer cut after ${o.partialBytes} bytes (${o.error})`);
  }
  return out;
}
