// port-forward over SPDY/3.1 (`portforward.k8s.io`; kubectl >= 1.31 tunnels the same frames in a WebSocket): per
// forwarded connection the client opens an error stream and a data stream with the same `port` and `requestID`
// headers; the data stream's bytes go to the runtime's responder for that port and its answer comes back.
import type { Client } from '../../client/client.js';
import type { ContainerRuntime } from '../../exec/types.js';
import { forwardingError } from './portforward-options.js';
import { SpdyConnection, type SpdyStream, type Transport } from './spdy-connection.js';

const pairingMs = 30_000;

export interface PortForwardTarget {
  client: Client;
  namespace: string;
  pod: string;
}

interface Pair {
  error?: SpdyStream;
  data?: SpdyStream;
  timer: NodeJS.Timeout;
}

export function parsePort(raw: string | undefined): number | undefined {
  if (!raw || !/^\d{1,5}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= 1 && n <= 65535 ? n : undefined;
}

export function serveSpdyPortForward(transport: Transport, runtime: ContainerRuntime, target: PortForwardTarget): SpdyConnection {
  const pairs = new Map<string, Pair>();
  const aborted = new AbortController();
  const conn: SpdyConnection = new SpdyConnection(transport, (s) => {
    const type = s.headers.get('streamtype');
    const port = s.headers.get('port');
    const key = `${s.headers.get('requestid') ?? ''}/${port ?? ''}`;
    if ((type !== 'error' && type !== 'data') || pairs.size >= conn.limits.maxStreams) return s.reset();
    let pair = pairs.get(key);
    if (!pair) {
      const timer = setTimeout(() => {
        pairs.delete(key);
        pair?.error?.reset();
        pair?.data?.reset();
      }, pairingMs);
      timer.unref();
      pair = { timer };
      pairs.set(key, pair);
    }
    if (pair[type]) return s.reset();
    pair[type] = s;
    if (!pair.error || !pair.data) return;
    clearTimeout(pair.timer);
    pairs.delete(key);
    forward(pair.error, pair.data, port);
  });
  conn.onClose(() => {
    aborted.abort();
    for (const p of pairs.values()) clearTimeout(p.timer);
    pairs.clear();
  });

  function forward(error: SpdyStream, data: SpdyStream, rawPort: string | undefined): void {
    const port = parsePort(rawPort);
    if (port === undefined) {
      error.write(`invalid port: "${rawPort ?? ''}"`);
      error.end();
      data.end();
      return;
    }
    runtime.portForward({ ...target, port, input: data.input, output: { write: (d) => data.write(d) }, signal: aborted.signal })
      .catch((e: unknown) => {
        error.write(forwardingError(port, target.pod, e));
      })
      .finally(() => {
        data.end();
        error.end();
      });
  }
  return conn;
}
