// exec and attach over WebSocket (kubectl >= 1.30): channel-prefixed messages both ways; the outcome goes on the
// error channel, then a normal close. The command starts a moment after the handshake: client-go's WebSocket executor
// registers its stdout and stderr streams while its reader already runs, and drops a message for a stream it has not
// registered yet ("Unknown stream id"), so output sent at once could vanish while the exit status arrives. A real
// container's exec starts that much later anyway.
import type { WebSocket } from 'ws';
import type { ContainerRuntime } from '../../exec/types.js';
import { ByteQueue } from './byte-queue.js';
import { runExec, type ExecRequest } from './exec-session.js';
import { execStatus } from './exec-status.js';
import { channel, decodeChannelMessage, type ChannelProtocol } from './ws-channels.js';
import { channelSender, wsLimits } from './ws-transport.js';

export function serveWsExec(ws: WebSocket, runtime: ContainerRuntime, req: ExecRequest, protocol: ChannelProtocol): void {
  const stdin = req.stdin ? new ByteQueue(wsLimits.streamBuffer) : undefined;
  const resize = req.tty ? new ByteQueue(4096) : undefined;
  const aborted = new AbortController();
  let done = false;
  const send = channelSender(ws, protocol, () => done);
  const sink = (ch: number) => ({ write: (d: Buffer | string) => send(ch, typeof d === 'string' ? Buffer.from(d) : d) });
  const idle = setTimeout(() => ws.terminate(), wsLimits.idleMs);
  idle.unref();
  ws.on('message', (data: Buffer) => {
    idle.refresh();
    const m = decodeChannelMessage(protocol, data);
    if (m.kind === 'close') {
      if (m.channel === channel.stdin) stdin?.end();
      if (m.channel === channel.resize) resize?.end();
      return;
    }
    if (m.kind !== 'data') return;
    const q = m.channel === channel.stdin ? stdin : m.channel === channel.resize ? resize : undefined;
    if (!q) return;
    const room = q.push(m.data);
    if (q.buffered > q.limit) {
      ws.pause();
      void room.then(() => ws.resume());
    }
  });
  ws.on('close', () => {
    done = true;
    clearTimeout(idle);
    stdin?.discard();
    resize?.discard();
    aborted.abort();
  });
  ws.on('error', () => ws.terminate());
  const start = setTimeout(() => {
    if (done) return;
    void runExec(runtime, req, {
      stdin, resize, stdout: req.stdout ? sink(channel.stdout) : undefined, stderr: req.stderr ? sink(channel.stderr) : undefined, signal: aborted.signal,
    }).then((outcome) => {
      const status = execStatus(outcome, req.command, protocol.structured);
      if (status) send(channel.error, status);
      done = true;
      clearTimeout(idle);
      if (ws.readyState === ws.OPEN) ws.close(1000);
    });
  }, wsLimits.startDelayMs);
  ws.once('close', () => clearTimeout(start));
}
