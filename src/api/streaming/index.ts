// pods/exec, pods/attach and pods/portforward: checks as kube-apiserver and the kubelet make them, then the
// upgrade (WebSocket or SPDY/3.1) and the protocol serving the runtime's streams. Loaded on first use.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { clientFor } from '../../client/client.js';
import { forbiddenError } from '../../auth/authorization.js';
import { ApiError, badRequest, methodNotAllowed } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import type { ResourceDef } from '../../registry/resource.js';
import type { HandlerContext } from '../handler-context.js';
import { bool, query } from '../query.js';
import { attributesOf, type RequestInfo } from '../request-info.js';
import type { ExecRequest } from './exec-session.js';
import { portsOption, webSocketPortsProblem } from './portforward-options.js';
import { loadSimulated, runtimeFor } from './runtime.js';
import type { Transport } from './spdy-connection.js';
import { serveSpdyExec } from './spdy-exec.js';
import { serveSpdyPortForward } from './spdy-portforward.js';
import { takeUpgrade } from './upgrade.js';
import { pickChannelProtocol } from './ws-channels.js';
import { serveWsExec } from './ws-exec.js';
import { pickPortForwardProtocol, portForwardChannelProtocols, serveWsPortForward } from './ws-portforward.js';
import { acceptWebSocket, offeredProtocols, tunnelTransport, wsServer } from './ws-transport.js';

export type StreamingSubresource = 'exec' | 'attach' | 'portforward';

/**
 * Loads what the first exec, attach or port-forward needs (the `ws` package, the simulated container runtime), one
 * piece a turn of the event loop: loaded on the first session instead, they held the loop for 30-60 ms in one task
 * while other requests waited (issue 22). `between` yields to I/O.
 */
export async function preloadStreaming(between: () => Promise<void>): Promise<void> {
  await wsServer();
  await between();
  await loadSimulated();
}

const spdyExecProtocols = ['v4.channel.k8s.io', 'v3.channel.k8s.io', 'v2.channel.k8s.io', 'channel.k8s.io'];
const spdyPortForwardProtocols = ['portforward.k8s.io'];
const tunnelProtocol = 'SPDY/3.1+portforward.k8s.io';

interface PodLike {
  spec?: { nodeName?: string; containers?: Array<{ name: string }>; initContainers?: Array<{ name: string }>; ephemeralContainers?: Array<{ name: string }> };
  status?: Record<string, Array<{ name: string; state?: { running?: unknown } }> | undefined>;
}

/** An answer written straight to the socket (the request was an upgrade; Fastify's reply is given up). */
function rawAnswer(socket: Duplex, code: number, reason: string, body: string, headers: Record<string, string> = {}): void {
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  const b = Buffer.from(body);
  socket.end(`HTTP/1.1 ${code} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${b.length}\r\n${extra}Connection: close\r\n\r\n${body}`);
}

function containerOf(pod: PodLike, name: string, requested: string | null): string {
  const all = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? []), ...(pod.spec?.ephemeralContainers ?? [])].map((c) => c.name);
  if (!requested) {
    const main = pod.spec?.containers ?? [];
    if (main.length === 1) return main[0].name;
    throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${main.map((c) => c.name).join(' ')}]`);
  }
  if (!all.includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

function running(pod: PodLike, container: string): boolean {
  const st = pod.status ?? {};
  return ['containerStatuses', 'initContainerStatuses', 'ephemeralContainerStatuses'].some((k) => (st[k] ?? []).some((c) => c.name === container && !!c.state?.running));
}

function socketTransport(socket: Duplex): Transport {
  return {
    write: (d) => void socket.write(d),
    backlog: () => socket.writableLength,
    pause: () => void socket.pause(),
    resume: () => void socket.resume(),
    end: () => void socket.end(),
    destroy: () => void socket.destroy(),
  };
}

/** The SPDY handshake: the first protocol the client lists that we speak, or a 403 naming both lists. */
function negotiate(raw: IncomingMessage, socket: Duplex, ours: string[]): string | undefined {
  const h = raw.headers['x-stream-protocol-version'];
  const theirs = (Array.isArray(h) ? h.join(',') : h ?? '').split(',').map((s) => s.trim()).filter(Boolean).slice(0, 32);
  if (!theirs.length) return ours[ours.length - 1];
  const pick = theirs.find((p) => ours.includes(p));
  if (!pick) rawAnswer(socket, 403, 'Forbidden', `unable to upgrade: unable to negotiate protocol: client supports [${theirs.join(' ')}], server supports [${ours.join(' ')}]`, { 'X-Accepted-Stream-Protocol-Versions': ours.join(', ') });
  return pick;
}

function spdyUpgrade(socket: Duplex, head: Buffer, protocol: string, serve: (t: Transport) => { receive(b: Buffer): void; lost(): void }): void {
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
  const conn = serve(socketTransport(socket));
  if (head.length) conn.receive(head);
  socket.on('data', (d: Buffer) => conn.receive(d));
  socket.on('close', () => conn.lost());
}

export async function serveStreaming(ctx: HandlerContext, def: ResourceDef, info: RequestInfo, req: FastifyRequest, reply: FastifyReply, sub: StreamingSubresource): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'POST') throw methodNotAllowed();
  const { reg } = ctx;
  // A WebSocket upgrade is a GET: it needs the `create` permission a POST would (upstream's
  // AuthorizePodWebsocketUpgradeCreatePermission).
  if (req.method === 'GET' && reg.authorization) {
    const attrs = { ...attributesOf(req), verb: 'create' };
    attrs.user = req.user;
    const { decision, reason } = reg.authorization.authorize(attrs);
    if (decision !== 'allow') throw forbiddenError(attrs, reason);
  }
  const namespace = info.namespace ?? '';
  const name = info.name ?? '';
  const q = new URLSearchParams(req.url.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '');
  // The options are converted before the pod is read: a bad port is a 400 whether the pod exists or not.
  const ports = sub === 'portforward' ? portsOption(q.getAll('ports').slice(0, 1024)) : [];
  const pod = reg.get(def, namespace, name) as KObject & PodLike;
  // Booleans as the apiserver converts query parameters (the Python client sends `stdout=True`).
  const flag = (key: string) => bool(query(req), key);
  const client = clientFor(reg);
  let exec: ExecRequest | undefined;
  if (sub !== 'portforward') {
    const command = sub === 'exec' ? q.getAll('command').slice(0, 1024) : [];
    if (sub === 'exec' && command.length === 0) throw badRequest('you must specify at least 1 command');
    const container = containerOf(pod, name, q.get('container'));
    exec = { kind: sub, client, namespace, pod: name, container, command, stdin: flag('stdin'), stdout: flag('stdout'), stderr: flag('stderr'), tty: flag('tty') };
    if (!exec.stdin && !exec.stdout && !exec.stderr) throw badRequest('you must specify at least one of stdin, stdout, stderr');
  }
  if (!pod.spec?.nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const upgrade = takeUpgrade(req.raw);
  if (!upgrade) throw new ApiError(400, 'BadRequest', 'Upgrade request required');
  void reply.hijack();
  const { socket, head } = upgrade;
  // The kubelet's answer for a container that is not running, passed on as the apiserver proxies it.
  if (exec && !running(pod, exec.container)) return rawAnswer(socket, 404, 'Not Found', `container not found ("${exec.container}")`);
  const kind = String(req.headers.upgrade ?? '').toLowerCase();
  let runtime;
  try {
    runtime = await runtimeFor(reg);
  } catch (e) {
    return rawAnswer(socket, 500, 'Internal Server Error', `no container runtime: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (kind === 'websocket') {
    const offered = offeredProtocols(req.raw);
    if (exec) {
      const p = pickChannelProtocol(offered);
      if (!p) return rawAnswer(socket, 400, 'Bad Request', `requested protocol(s) are not supported: [${offered.join(' ')}]`);
      const ws = await acceptWebSocket(req.raw, socket, head, p.name);
      return serveWsExec(ws, runtime, exec, p);
    }
    if (!offered.includes(tunnelProtocol)) {
      // Not kubectl's SPDY tunnel: the kubelet's own WebSocket port-forward, channels per port.
      const p = pickPortForwardProtocol(offered);
      if (!p) return rawAnswer(socket, 400, 'Bad Request', `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${[...portForwardChannelProtocols, tunnelProtocol].join(' ')}]`);
      const problem = webSocketPortsProblem(ports);
      if (problem) return rawAnswer(socket, 400, 'Bad Request', problem);
      const ws = await acceptWebSocket(req.raw, socket, head, p.name);
      return serveWsPortForward(ws, runtime, { client, namespace, pod: name }, ports, p);
    }
    const ws = await acceptWebSocket(req.raw, socket, head, tunnelProtocol);
    const conn = serveSpdyPortForward(tunnelTransport(ws), runtime, { client, namespace, pod: name });
    ws.on('message', (d: Buffer) => conn.receive(d));
    ws.on('close', () => conn.lost());
    ws.on('error', () => ws.terminate());
    return;
  }
  if (kind === 'spdy/3.1') {
    const protocol = negotiate(req.raw, socket, exec ? spdyExecProtocols : spdyPortForwardProtocols);
    if (!protocol) return;
    const ex = exec;
    if (ex) return spdyUpgrade(socket, head, protocol, (t) => serveSpdyExec(t, runtime, ex, protocol));
    return spdyUpgrade(socket, head, protocol, (t) => serveSpdyPortForward(t, runtime, { client, namespace, pod: name }));
  }
  rawAnswer(socket, 400, 'Bad Request', `unsupported upgrade: ${kind.slice(0, 64)}`);
}
