// exec and attach over SPDY/3.1 (kubectl before 1.30): the client opens one stream per channel, each named by its
// `streamType` header (error, stdin, stdout, stderr, resize); the session starts once all it asked for are open.
import type { ContainerRuntime } from '../../exec/types.js';
import { runExec, type ExecRequest } from './exec-session.js';
import { execStatus } from './exec-status.js';
import { SpdyConnection, type SpdyStream, type Transport } from './spdy-connection.js';

/** How long the client has to open its streams. */
const streamCreationMs = 30_000;
/** After the outcome is sent, how long the client has to close the connection itself. */
const lingerMs = 5_000;

export function serveSpdyExec(transport: Transport, runtime: ContainerRuntime, req: ExecRequest, protocol: string): SpdyConnection {
  const want = new Set<string>(['error']);
  if (req.stdin) want.add('stdin');
  if (req.stdout) want.add('stdout');
  if (req.stderr && !req.tty) want.add('stderr');
  // The resize stream came with v3.
  if (req.tty && protocol !== 'v2.channel.k8s.io' && protocol !== 'channel.k8s.io') want.add('resize');
  const got = new Map<string, SpdyStream>();
  let started = false;
  const conn: SpdyConnection = new SpdyConnection(transport, (s) => {
    const type = s.headers.get('streamtype') ?? '';
    if (started || !want.has(type) || got.has(type)) return s.reset();
    got.set(type, s);
    if (got.size === want.size) {
      started = true;
      clearTimeout(timer);
      void start();
    }
  });
  const timer = setTimeout(() => conn.shutdown(), streamCreationMs);
  timer.unref();
  const aborted = new AbortController();
  conn.onClose(() => {
    clearTimeout(timer);
    aborted.abort();
  });

  async function start(): Promise<void> {
    const sink = (s: SpdyStream | undefined) => s && { write: (d: Buffer | string) => s.write(d) };
    const outcome = await runExec(runtime, req, {
      stdin: got.get('stdin')?.input, stdout: sink(got.get('stdout')), stderr: sink(got.get('stderr')), resize: got.get('resize')?.input, signal: aborted.signal,
    });
    if (conn.isClosed) return;
    const status = execStatus(outcome, req.command, protocol === 'v4.channel.k8s.io');
    const error = got.get('error');
    if (status && error) error.write(status);
    for (const s of got.values()) s.end();
    // The client closes the connection once it has read everything; closing first could lose frames in flight.
    setTimeout(() => conn.shutdown(), lingerMs).unref();
  }
  return conn;
}
