// port-forward over a plain WebSocket, as the kubelet's streaming server serves it (the Python client's
// `portforward`; kubectl tunnels SPDY instead, see index.ts): the ports come from the query, port i gets the data
// channel 2i and the error channel 2i+1, and the server opens each channel with a message holding the port as two
// little-endian bytes. Every port is forwarded from the start; a failure is reported on its error channel; the
// connection closes once every port's forward is over.
import type { WebSocket } from 'ws';
import type { ContainerRuntime } from '../../exec/types.js';
import { ByteQueue } from './byte-queue.js';
import { forwardingError } from './portforward-options.js';
import type { PortForwardTarget } from './spdy-portforward.js';
import { decodeChannelMessage, pickChannelProtocol, type ChannelProtocol } from './ws-channels.js';
import { channelSender, wsLimits } from './ws-transport.js';

/** The kubelet's choice when the client names no subprotocol: binary channels. */
const unnamed: ChannelProtocol = { name: '', base64: false, structured: false, closable: false };
export const portForwardChannelProtocols = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io'];

/** The first of the client's subprotocols the kubelet's port-forward speaks (none offered: binary channels). */
export function pickPortForwardProtocol(offered: string[]): ChannelProtocol | undefined {
  if (!offered.length) return unnamed;
  return pickChannelProtocol(offered.filter((o) => portForwardChannelProtocols.includes(o)));
}

export function serveWsPortForward(ws: WebSocket, runtime: ContainerRuntime, target: PortForwardTarget, ports: number[], protocol: ChannelProtocol): void {
  const aborted = new AbortController();
  const inputs = ports.map(() => new ByteQueue(wsLimits.streamBuffer));
  let over = false;
  const send = channelSender(ws, protocol, () => over);
  const idle = setTimeout(() => ws.terminate(), wsLimits.idleMs);
  idle.unref();
  // Reading stops while any port's input is over its bound (the kubelet's pipes block its one reader alike).
  let blocked = 0;
  ws.on('message', (data: Buffer) => {
    idle.refresh();
    const m = decodeChannelMessage(protocol, data);
    // Error channels (odd) are the server's to write; what comes on them, or on no port's channel, is dropped.
    if (m.kind !== 'data' || m.channel % 2 !== 0) return;
    const q = inputs[m.channel / 2];
    if (!q) return;
    const room = q.push(m.data);
    if (q.buffered <= q.limit) return;
    if (blocked++ === 0) ws.pause();
    void room.then(() => {
      if (--blocked === 0) ws.resume();
    });
  });
  ws.on('close', () => {
    over = true;
    clearTimeout(idle);
    for (const q of inputs) q.discard();
    aborted.abort();
  });
  ws.on('error', () => ws.terminate());

  ports.forEach((port, i) => {
    const prefix = Buffer.from([port & 0xff, port >> 8]);
    send(2 * i, prefix);
    send(2 * i + 1, prefix);
  });
  const forwards = ports.map((port, i) => runtime
    .portForward({ ...target, port, input: inputs[i], output: { write: (d) => send(2 * i, typeof d === 'string' ? Buffer.from(d) : d) }, signal: aborted.signal })
    .catch((e: unknown) => send(2 * i + 1, Buffer.from(forwardingError(port, target.pod, e))))
    // Over for this port: what the client still sends to it is dropped.
    .finally(() => inputs[i].discard()));
  void Promise.all(forwards).then(() => {
    clearTimeout(idle);
    if (ws.readyState === ws.OPEN) ws.close(1000);
  });
}
