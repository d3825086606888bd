// pods/log: text from the pod's simulated containers (the kubelet simulation installs the provider), with
// follow, previous, tailLines, sinceSeconds/sinceTime, timestamps and limitBytes as the kubelet serves them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import { bool, int, query, str } from './query.js';
import { openWatchesOf } from './watch-stream.js';

/** Bytes a `--follow` stream may hold for a client that does not read them. */
const maxFollowBuffered = 16 * 1024 * 1024;

import { logProvider, type PodLogLine } from '../kubelet/log-provider.js';

/** RFC3339 with nine fraction digits, as the kubelet prefixes lines with `timestamps=true`. */
export function rfc3339NanoFixed(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z');
}

interface Names {
  containers: string[];
  init: string[];
  ephemeral: string[];
}

function names(pod: KObject): Names {
  type Named = Array<{ name: string }>;
  const spec = pod.spec as { containers?: Named; initContainers?: Named; ephemeralContainers?: Named } | undefined;
  const of = (list: Named | undefined) => (Array.isArray(list) ? list : []).map((c) => c.name);
  return { containers: of(spec?.containers), init: of(spec?.initContainers), ephemeral: of(spec?.ephemeralContainers) };
}

function sinceMs(q: Record<string, string | string[] | undefined>, now: number): number | undefined {
  const secs = int(q, 'sinceSeconds');
  const time = str(q, 'sinceTime');
  if (secs !== undefined && time) throw badRequest('at most one of `sinceTime` or `sinceSeconds` may be specified');
  if (secs !== undefined) {
    if (secs < 1) throw badRequest('sinceSeconds: Invalid value: must be greater than 0');
    return now - secs * 1000;
  }
  if (time) {
    const t = Date.parse(time);
    if (Number.isNaN(t)) throw badRequest(`parsing time "${time}" as "2006-01-02T15:04:05Z07:00": cannot parse`);
    return t;
  }
  return undefined;
}

export function podLogs(reg: Registry, namespace: string, name: string, req: FastifyRequest, reply: FastifyReply): void {
  const pod = reg.get(reg.find('', 'v1', 'pods')!, namespace, name);
  const { containers, init, ephemeral } = names(pod);
  const q = query(req);
  let container = str(q, 'container');
  if (!container) {
    if (containers.length !== 1) {
      const initPart = init.length ? ` or one of the init containers: [${init.join(' ')}]` : '';
      throw badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]${initPart}`);
    }
    container = containers[0];
  }
  if (!containers.includes(container) && !init.includes(container) && !ephemeral.includes(container)) throw badRequest(`container ${container} is not valid for pod ${name}`);
  if (!(pod.spec as { nodeName?: string }).nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const tail = int(q, 'tailLines');
  const limit = int(q, 'limitBytes');
  if (limit !== undefined && limit < 1) throw badRequest('limitBytes: Invalid value: must be greater than 0');
  const previous = bool(q, 'previous');
  const follow = bool(q, 'follow') && !previous;
  const timestamps = bool(q, 'timestamps');
  const p = logProvider(reg);
  if (!p) throw badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`);
  const since = sinceMs(q, p.nowMs());
  const got = p.read(pod, container, previous);
  if ('error' in got) throw badRequest(got.error);
  let lines = since === undefined ? got.lines : got.lines.filter((l) => l.atMs >= since);
  if (tail !== undefined && tail >= 0) lines = tail === 0 ? [] : lines.slice(-tail);
  let budget = limit ?? Infinity;
  const format = (l: PodLogLine): string => {
    const text = `${timestamps ? `${rfc3339NanoFixed(l.atMs)} ` : ''}${l.text}\n`;
    if (budget === Infinity) return text;
    const bytes = Buffer.from(text);
    const part = bytes.subarray(0, Math.max(0, budget)).toString();
    budget -= bytes.length;
    return part;
  };
  if (!follow) {
    reply.type('text/plain').send(lines.map(format).join(''));
    return;
  }
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();
  let closed = false;
  let cancel: (() => void) | undefined;
  const close = () => {
    if (closed) return;
    closed = true;
    cancel?.();
    openWatchesOf(reg).delete(close);
    if (!res.writableEnded) res.end();
  };
  openWatchesOf(reg).add(close);
  req.raw.on('close', close);
  res.on('close', close);
  const write = (l: PodLogLine) => {
    if (closed) return;
    if (budget <= 0) return close();
    res.write(format(l));
    if (res.writableLength > maxFollowBuffered) {
      // A follower that stopped reading is cut off rather than buffered without bound.
      close();
      res.destroy();
      return;
    }
    if (budget <= 0) close();
  };
  for (const l of lines) write(l);
  if (closed) return;
  cancel = p.follow(pod, container, got.lines.length, write, close);
  if (closed) cancel();
}
