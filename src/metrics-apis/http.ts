// The metrics adapter's HTTP side: GET under /apis/custom.metrics.k8s.io/<v1beta2|v1beta1>/ and
// /apis/external.metrics.k8s.io/v1beta1/, answering MetricValueList and ExternalMetricValueList as
// custom-metrics-apiserver does; paths and query strings are client input (parsed with bounds, 404/400/405 as
// the adapter answers).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, methodNotAllowed } from '../machinery/errors.js';
import { parseLabelSelector } from '../machinery/labels.js';
import type { Registry } from '../registry/registry.js';
import { isPathSegmentName } from '../machinery/names.js';
import { pathNotFound } from '../api/request-info.js';
import { query, str } from '../api/query.js';
import { metricByName, metricBySelector, type CustomMetricValue } from './custom-metrics.js';
import { customMetricsGroup, externalMetricsGroup, isAdapterGroupVersion } from './discovery.js';
import { externalMetricNotFound } from './errors.js';
import { canonicalQuantity } from './quantity.js';

/** Longest path (in segments) either API has: namespaces/<ns>/<resource>/<name>/<metric>. */
const maxSegments = 5;

/** The path segments after /apis/<group>/<version>/, decoded; undefined when the path is not one of ours. */
function segmentsOf(url: string, group: string, version: string): string[] | undefined {
  const path = url.split('?', 1)[0];
  const prefix = `/apis/${group}/${version}/`;
  if (!path.startsWith(prefix)) return undefined;
  const raw = path.slice(prefix.length).replace(/\/$/, '').split('/');
  if (raw.length > maxSegments) return undefined;
  const out: string[] = [];
  for (const r of raw) {
    let s: string;
    try {
      s = decodeURIComponent(r);
    } catch {
      return undefined;
    }
    if (s === '' || s.includes('/')) return undefined;
    out.push(s);
  }
  return out;
}

function checkName(what: string): void {
  if (what === '*') return;
  const problems = isPathSegmentName(what);
  if (problems.length) throw badRequest(`Name parameter invalid: ${JSON.stringify(what)}: ${problems.join(';')}`);
}

function selectorParam(req: FastifyRequest, name: string) {
  return parseLabelSelector(str(query(req), name) ?? '');
}

/** A MetricValue in the version asked for (v1beta1 names the metric at the top level). */
function versioned(v: CustomMetricValue, version: string): Record<string, unknown> {
  const value = canonicalQuantity(v.value);
  if (version === 'v1beta1') return { describedObject: v.describedObject, metricName: v.metric.name, timestamp: v.timestamp, value };
  return { describedObject: v.describedObject, metric: v.metric, timestamp: v.timestamp, value };
}

interface CustomTarget {
  gr: string;
  namespace: string;
  name: string;
  metric: string;
}

/** The object(s) and metric a custom metrics path names, or undefined for a path the adapter has no route for. */
function customTarget(s: string[]): CustomTarget | undefined {
  if (s.length === 3) return { gr: s[0], namespace: '', name: s[1], metric: s[2] };
  if (s.length === 4 && s[0] === 'namespaces' && s[2] === 'metrics') return { gr: 'namespaces', namespace: '', name: s[1], metric: s[3] };
  if (s.length === 5 && s[0] === 'namespaces') return { gr: s[2], namespace: s[1], name: s[3], metric: s[4] };
  return undefined;
}

function handleCustom(reg: Registry, version: string, s: string[], req: FastifyRequest, reply: FastifyReply): void {
  const t = customTarget(s);
  if (!t) throw pathNotFound();
  if (t.namespace) checkName(t.namespace);
  checkName(t.name);
  // Values carry no labels here: the metric selector is parsed (a bad one is a 400) and matches every value.
  selectorParam(req, 'metricLabelSelector');
  const values = t.name === '*'
    ? metricBySelector(reg, t.gr, t.namespace, selectorParam(req, 'labelSelector'), t.metric)
    : [metricByName(reg, t.gr, t.namespace, t.name, t.metric)];
  reply.send({ kind: 'MetricValueList', apiVersion: `${customMetricsGroup}/${version}`, metadata: {}, items: values.map((v) => versioned(v, version)) });
}

function handleExternal(reg: Registry, version: string, s: string[], req: FastifyRequest, reply: FastifyReply): void {
  if (s.length !== 3 || s[0] !== 'namespaces') throw pathNotFound();
  const [, namespace, metric] = s;
  checkName(namespace);
  const selector = str(query(req), 'labelSelector') ?? '';
  parseLabelSelector(selector);
  let items;
  for (const src of reg.externalMetrics) {
    items = src.values(namespace, metric, selector);
    if (items !== undefined) break;
  }
  if (items === undefined) throw externalMetricNotFound(namespace, metric);
  const out = items.map((i) => ({ metricName: i.metricName, metricLabels: i.metricLabels ?? null, timestamp: i.timestamp, value: canonicalQuantity(i.value) }));
  reply.send({ kind: 'ExternalMetricValueList', apiVersion: `${externalMetricsGroup}/${version}`, metadata: {}, items: out });
}

/** Serves a request under one of the adapter's group versions (discovery is served with the other groups). */
export function handleMetricsAdapter(reg: Registry, group: string, version: string, req: FastifyRequest, reply: FastifyReply): void {
  if (!isAdapterGroupVersion(group, version)) throw pathNotFound();
  const s = segmentsOf(req.url, group, version);
  if (!s) throw pathNotFound();
  if (req.method !== 'GET') throw methodNotAllowed();
  if (group === externalMetricsGroup) handleExternal(reg, version, s, req, reply);
  else handleCustom(reg, version, s, req, reply);
}
