// The WebSocket side: the `ws` package, loaded on first use, accepting upgrades on sockets Fastify routed to us;
// and a byte transport over binary messages for the SPDY tunnel of port-forward (kubectl >= 1.31).
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import type { Transport } from './spdy-connection.js';
import { encodeChannelMessage, type ChannelProtocol } from './ws-channels.js';

export const wsLimits = { maxPayload: 1 << 20, streamBuffer: 256 * 1024, maxBacklog: 4 << 20, idleMs: 30 * 60_000, startDelayMs: 50 };

let server: Promise<WebSocketServer> | undefined;

/** The WebSocket server (the `ws` package is loaded on the first call: see `preloadStreaming`). */
export function wsServer(): Promise<WebSocketServer> {
  server ??= import('ws').then(({ WebSocketServer: Server }) => new Server({
    noServer: true, maxPayload: wsLimits.maxPayload, perMessageDeflate: false, clientTracking: false,
    // The protocol was chosen (and refused when none fits) before the upgrade: see `acceptWebSocket`.
    handleProtocols: (_offered, req) => chosen.get(req) ?? false,
  }));
  return server;
}

const chosen = new WeakMap<IncomingMessage, string>();

/** Completes the WebSocket handshake with `protocol`. */
export async function acceptWebSocket(req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string): Promise<WebSocket> {
  const wss = await wsServer();
  chosen.set(req, protocol);
  return new Promise((resolve) => wss.handleUpgrade(req, socket, head, (ws) => resolve(ws)));
}

/** The subprotocols a WebSocket client offers, in its order. */
export function offeredProtocols(req: IncomingMessage): string[] {
  const h = req.headers['sec-websocket-protocol'];
  return (typeof h === 'string' ? h : '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, 32);
}

/** SPDY frames carried in binary WebSocket messages, as client-go's tunnelling connection sends them. */
export function tunnelTransport(ws: WebSocket): Transport {
  return {
    write: (data) => {
      if (ws.readyState === ws.OPEN) ws.send(data, { binary: true });
    },
    backlog: () => ws.bufferedAmount,
    pause: () => ws.pause(),
    resume: () => ws.resume(),
    end: () => {
      if (ws.readyState === ws.OPEN) ws.close(1000);
    },
    destroy: () => ws.terminate(),
  };
}

/** Sends channel messages until `over()`; a client whose unread backlog passes the bound is cut off. */
export function channelSender(ws: WebSocket, protocol: ChannelProtocol, over: () => boolean): (ch: number, data: Buffer) => void {
  return (ch, data) => {
    if (over() || ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > wsLimits.maxBacklog) {
      ws.terminate();
      return;
    }
    const m = encodeChannelMessage(protocol, ch, data);
    ws.send(m.data, { binary: m.binary });
  };
}
