// kube-apiserver's Prometheus metrics on /metrics (rendered by prom-client): request counts and latencies by verb
// and resource, long-running requests and watchers, in-flight requests and stored objects.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Registry } from '../registry/registry.js';
import { storageKey } from '../registry/resource.js';
import { metricsGroup, metricsResources } from './metrics.js';
import { attributesOf } from './request-info.js';


const component = 'apiserver';
/** Upstream's buckets for apiserver_request_duration_seconds (an SLO metric: fine below a second, long for watches). */
const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
const connectSubresources = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);
const reportedVerbs = new Set(['APPLY', 'CONNECT', 'CREATE', 'DELETE', 'DELETECOLLECTION', 'GET', 'LIST', 'PATCH', 'POST', 'PROXY', 'PUT', 'UPDATE', 'WATCH', 'WATCHLIST']);
/** Non-resource paths upstream instruments (the label `subresource` carries the path). */
const instrumentedPaths = new Set(['/healthz', '/livez', '/readyz', '/version', '/openapi/v2', '/openapi/v3', '/metrics']);

/** What one request is counted as: label values without the code, and where it stands in the other gauges. */
interface Sample {
  /** verb, dry_run, group, version, resource, subresource, scope, component. */
  labels: string[];
  longRunning: boolean;
  mutating: boolean;
  /** group/version/kind of a watch. */
  watchKind?: [string, string, string];
  started: number;
  done?: boolean;
}

const sampleKey = Symbol('bonsai.metrics.sample');
type Tagged = FastifyRequest & { [sampleKey]?: Sample };

function dryRunLabel(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !url.includes('dryRun', q)) return '';
  const values = new URLSearchParams(url.slice(q + 1)).getAll('dryRun');
  if (values.some((v) => v !== 'All')) return 'invalid';
  return values.length ? 'All' : '';
}

/** The sample of a request, as upstream's MonitorRequest labels it; undefined for paths no route serves. */
function sampleOf(reg: Registry, req: FastifyRequest): Sample | undefined {
  const url = req.url;
  const method = req.method;
  const a = attributesOf(req);
  const mutating = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
  if (!a.resourceRequest) {
    const path = url.split('?', 1)[0];
    if (!instrumentedPaths.has(path)) return undefined;
    const verb = method === 'HEAD' ? 'GET' : method;
    return { labels: [reportedVerbs.has(verb) ? verb : 'other', '', '', '', '', path, '', component], longRunning: false, mutating, started: performance.now() };
  }
  // Only served resources are counted: labels taken from any path a client sends would grow without bound.
  const def = a.apiGroup === metricsGroup ? metricsResources.find((d) => d.plural === a.resource && d.version === a.apiVersion) : reg.find(a.apiGroup, a.apiVersion, a.resource);
  if (!def || (a.subresource && !def.subresources?.includes(a.subresource as never))) return undefined;
  const scope = a.name || a.verb === 'create' ? 'resource' : a.namespace ? 'namespace' : 'cluster';
  let verb: string;
  if (a.verb === 'watch') verb = 'WATCH';
  else if (a.subresource && connectSubresources.has(a.subresource)) verb = 'CONNECT';
  else if (method === 'GET' || method === 'HEAD') verb = scope === 'resource' ? 'GET' : 'LIST';
  else if (method === 'PATCH' && req.headers['content-type'] === 'application/apply-patch+yaml') verb = 'APPLY';
  else verb = reportedVerbs.has(method) ? method : 'other';
  const longRunning = verb === 'WATCH' || verb === 'CONNECT';
  return {
    labels: [verb, dryRunLabel(url), a.apiGroup, a.apiVersion, a.resource, a.subresource, scope, component],
    longRunning, mutating,
    watchKind: verb === 'WATCH' ? [a.apiGroup, a.apiVersion, def.kind] : undefined,
    started: performance.now(),
  };
}

/** Label values by name, in alphabetical order: prom-client writes them in key order, Go's exposition sorted. */
function named(l: string[]): Record<string, string> {
  return { component: l[7], dry_run: l[1], group: l[2], resource: l[4], scope: l[6], subresource: l[5], verb: l[0], version: l[3] };
}

/** A gauge's current values by label set. */
class Tally {
  readonly values = new Map<string, { labels: string[]; n: number }>();
  add(labels: string[], d: number): void {
    const k = labels.join('\0');
    const e = this.values.get(k);
    if (e) e.n += d;
    else this.values.set(k, { labels, n: d });
  }
}

/** One label set of the request counter and latency histogram. */
interface Series {
  labels: string[];
  codes: Map<string, number>;
  /** Observations per bucket (not cumulative), the last one past every bound. */
  buckets: number[];
  sum: number;
  count: number;
}

export type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string };
/** What prom-client's Registry renders: any object with a name, help, type and the values `get()` returns. */
export interface Exposed { name: string; help: string; type: 'counter' | 'gauge' | 'histogram'; get(): { name: string; help: string; type: string; values: MetricValue[]; aggregator: 'sum' } }

/** One label set of a histogram as exposed: cumulative buckets (`buckets` holds per-bucket counts, the last past every bound), sum, count. */
export function histogramValues(name: string, labels: Record<string, string>, bounds: readonly number[], h: { buckets: number[]; sum: number; count: number }): MetricValue[] {
  const out: MetricValue[] = [];
  let cumulative = 0;
  bounds.forEach((le, i) => {
    cumulative += h.buckets[i];
    out.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
  });
  out.push({ metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: h.count });
  out.push({ metricName: `${name}_sum`, labels, value: h.sum });
  out.push({ metricName: `${name}_count`, labels, value: h.count });
  return out;
}

export function exposed(name: string, type: Exposed['type'], help: string, values: () => MetricValue[]): Exposed {
  return { name, help, type, get: () => ({ name, help, type, values: values(), aggregator: 'sum' }) };
}

/**
 * Requests are counted here in plain maps (a few hundred nanoseconds a request); prom-client, whose label
 * hashing would cost more, only renders them, and loads on the first scrape, never on the way to the first answer.
 */
export class RequestMetrics {
  private readonly series = new Map<string, Series>();
  private readonly longRunning = new Tally();
  private readonly watchers = new Tally();
  /** In-flight requests now, and the most in the current one-second window (upstream reports that maximum). */
  private readonly inflight = { readOnly: 0, mutating: 0 };
  private readonly peak = { readOnly: 0, mutating: 0, last: { readOnly: 0, mutating: 0 }, window: 0 };
  private registry: Promise<import('prom-client').Registry> | undefined;
  /** Metrics other parts of the server expose (API Priority and Fairness); added before the first scrape. */
  private readonly extra: Exposed[] = [];

  constructor(private readonly reg: Registry) {}

  /** Exposes more metrics on /metrics (call before the first scrape). */
  add(...metrics: Exposed[]): void {
    this.extra.push(...metrics);
  }

  private record(labels: string[], code: number, seconds: number): void {
    const k = labels.join('\0');
    let s = this.series.get(k);
    if (!s) this.series.set(k, (s = { labels, codes: new Map(), buckets: new Array<number>(durationBuckets.length + 1).fill(0), sum: 0, count: 0 }));
    const c = String(code);
    s.codes.set(c, (s.codes.get(c) ?? 0) + 1);
    let i = 0;
    while (i < durationBuckets.length && seconds > durationBuckets[i]) i++;
    s.buckets[i]++;
    s.sum += seconds;
    s.count++;
  }

  private rotate(): void {
    const now = Math.floor(performance.now() / 1000);
    if (now === this.peak.window) return;
    this.peak.last = { readOnly: this.peak.readOnly, mutating: this.peak.mutating };
    this.peak.readOnly = this.inflight.readOnly;
    this.peak.mutating = this.inflight.mutating;
    this.peak.window = now;
  }

  start(req: FastifyRequest, reply: FastifyReply): void {
    const s = sampleOf(this.reg, req);
    if (!s) return;
    (req as Tagged)[sampleKey] = s;
    if (s.longRunning) {
      // Long-running requests (watches, logs) are hijacked streams: counted once their response closes.
      const gaugeLabels = [s.labels[0], ...s.labels.slice(2)];
      this.longRunning.add(gaugeLabels, 1);
      if (s.watchKind) this.watchers.add(s.watchKind, 1);
      reply.raw.once('close', () => {
        this.longRunning.add(gaugeLabels, -1);
        if (s.watchKind) this.watchers.add(s.watchKind, -1);
        this.record(s.labels, reply.raw.statusCode, (performance.now() - s.started) / 1000);
      });
      return;
    }
    const kind = s.mutating ? 'mutating' : 'readOnly';
    this.rotate();
    if (++this.inflight[kind] > this.peak[kind]) this.peak[kind] = this.inflight[kind];
  }

  /** The answer went out (no reply: the client left before it); long-running requests are counted on close. */
  finish(req: FastifyRequest, reply?: FastifyReply): void {
    const s = (req as Tagged)[sampleKey];
    if (!s || s.longRunning || s.done) return;
    s.done = true;
    this.inflight[s.mutating ? 'mutating' : 'readOnly']--;
    if (reply) this.record(s.labels, reply.statusCode, reply.elapsedTime / 1000);
  }

  private build(prom: typeof import('prom-client')): import('prom-client').Registry {
    const registry = new prom.Registry();
    const metrics: Exposed[] = [
      exposed('apiserver_request_total', 'counter', 'Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.', () => {
        const out: MetricValue[] = [];
        for (const s of this.series.values()) for (const [code, n] of s.codes) out.push({ labels: { code, ...named(s.labels) }, value: n });
        return out;
      }),
      exposed('apiserver_request_duration_seconds', 'histogram', 'Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.', () => {
        const out: MetricValue[] = [];
        for (const s of this.series.values()) out.push(...histogramValues('apiserver_request_duration_seconds', named(s.labels), durationBuckets, s));
        return out;
      }),
      exposed('apiserver_longrunning_requests', 'gauge', 'Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.',
        () => [...this.longRunning.values.values()].map(({ labels: l, n }) => ({ labels: { component: l[6], group: l[1], resource: l[3], scope: l[5], subresource: l[4], verb: l[0], version: l[2] }, value: n }))),
      exposed('apiserver_registered_watchers', 'gauge', 'Number of currently registered watchers for a given resources',
        () => [...this.watchers.values.values()].map(({ labels: l, n }) => ({ labels: { group: l[0], kind: l[2], version: l[1] }, value: n }))),
      exposed('apiserver_current_inflight_requests', 'gauge', 'Maximal number of currently used inflight request limit of this apiserver per request kind in last second.', () => {
        this.rotate();
        return [
          { labels: { request_kind: 'mutating' }, value: Math.max(this.peak.last.mutating, this.inflight.mutating) },
          { labels: { request_kind: 'readOnly' }, value: Math.max(this.peak.last.readOnly, this.inflight.readOnly) },
        ];
      }),
      exposed('apiserver_storage_objects', 'gauge', 'Number of stored objects at the time of last check split by kind. In case of a fetching error, the value will be -1.', () =>
        this.reg.defs.filter((d) => !d.sharedStorage && !d.virtualCreate && !d.computed)
          .map((d) => ({ labels: { resource: d.group ? `${d.plural}.${d.group}` : d.plural }, value: this.reg.store.count(storageKey(d)) }))),
    ];
    for (const m of [...metrics, ...this.extra]) registry.registerMetric(m as unknown as import('prom-client').Metric);
    return registry;
  }

  /** The Prometheus text exposition. */
  async render(): Promise<{ contentType: string; text: string }> {
    this.registry ??= import('prom-client').then((prom) => this.build(prom));
    const registry = await this.registry;
    return { contentType: registry.contentType, text: await registry.metrics() };
  }
}

/** Counts every request and serves GET /metrics. */
export function installRequestMetrics(app: FastifyInstance, reg: Registry): RequestMetrics {
  const m = new RequestMetrics(reg);
  app.addHook('onRequest', (req, reply, done) => {
    m.start(req, reply);
    done();
  });
  app.addHook('onResponse', (req, reply, done) => {
    m.finish(req, reply);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    m.finish(req);
    done();
  });
  app.get('/metrics', async (_req, reply) => {
    const { contentType, text } = await m.render();
    return reply.header('Content-Type', contentType).send(text);
  });
  return m;
}
