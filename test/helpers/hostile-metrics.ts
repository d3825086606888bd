// Hostile input for the simulated metrics adapter (custom.metrics.k8s.io, external.metrics.k8s.io): paths,
// names that are prototype keys, selectors in both query parameters, methods the adapter does not serve, and
// the ConfigMap source's data. Cases run in order: the first ones create the objects the others read.
import { CMS, NS, type HostileCase } from './hostile-cases.js';

const C = '/apis/custom.metrics.k8s.io/v1beta2';
const C1 = '/apis/custom.metrics.k8s.io/v1beta1';
const E = '/apis/external.metrics.k8s.io/v1beta1';
const json = { 'content-type': 'application/json' };
const notFound = { expectCode: 404, expectReason: 'NotFound' };

export function metricsAdapterCases(): HostileCase[] {
  const cm = (name: string, extra: Record<string, unknown>) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra }, data: { a: 'b' } });
  const long = 'x'.repeat(5000);
  return [
    // Fixtures: the external metrics ConfigMap (with prototype-named keys and a value that is no quantity) and an annotated object.
    { name: 'external metrics ConfigMap', method: 'POST', path: CMS, headers: json, expectCode: 201,
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bonsai-external-metrics', labels: { tier: 'a' } }, data: { queue: '5', bad: 'lots', ['__proto__']: '1', constructor: '2' } }) },
    { name: 'annotated ConfigMap', method: 'POST', path: CMS, headers: json, expectCode: 201, body: cm('annotated', { labels: { app: 'x' }, annotations: { 'custom-metrics.bonsai.dev/load': '3' } }) },

    // external.metrics.k8s.io
    { name: 'external metric', method: 'GET', path: `${E}/namespaces/${NS}/queue`, expectCode: 200 },
    { name: 'external metric, case differs', method: 'GET', path: `${E}/namespaces/${NS}/QUEUE`, expectCode: 200 },
    { name: 'external metric named __proto__ (a data key)', method: 'GET', path: `${E}/namespaces/${NS}/__proto__`, expectCode: 200 },
    { name: 'external metric named constructor (a data key)', method: 'GET', path: `${E}/namespaces/${NS}/constructor`, expectCode: 200 },
    { name: 'external metric named toString', method: 'GET', path: `${E}/namespaces/${NS}/toString`, ...notFound, expectMessage: /^the server could not find the metric toString for $/ },
    { name: 'external metric named hasOwnProperty', method: 'GET', path: `${E}/namespaces/${NS}/hasOwnProperty`, ...notFound },
    { name: 'external metric whose value is no quantity', method: 'GET', path: `${E}/namespaces/${NS}/bad`, ...notFound },
    { name: 'external metric in the default namespace', method: 'GET', path: `${E}/namespaces/default/queue`, ...notFound, expectMessage: /^the server could not find the metric queue for namespaces$/ },
    { name: 'external metric, very long name', method: 'GET', path: `${E}/namespaces/${NS}/${long}`, ...notFound, maxMs: 2000 },
    { name: 'external metric, selector matching the labels', method: 'GET', path: `${E}/namespaces/${NS}/queue?labelSelector=tier%3Da`, expectCode: 200 },
    { name: 'external metric, selector __proto__', method: 'GET', path: `${E}/namespaces/${NS}/queue?labelSelector=__proto__`, expectCode: 400 },
    { name: 'external metric, selector constructor', method: 'GET', path: `${E}/namespaces/${NS}/queue?labelSelector=constructor`, expectCode: 200 },
    { name: 'external metric, unterminated selector', method: 'GET', path: `${E}/namespaces/${NS}/queue?labelSelector=tier%20in%20(`, expectCode: 400 },
    { name: 'external metric, huge selector', method: 'GET', path: `${E}/namespaces/${NS}/queue?labelSelector=${'a,'.repeat(3000)}a`, expectCode: 200, maxMs: 2000 },
    { name: 'external metric, repeated selector', method: 'GET', path: `${E}/namespaces/${NS}/queue?labelSelector=x&labelSelector=tier%3Da`, expectCode: 200 },
    { name: 'external metric, namespace ..', method: 'GET', path: `${E}/namespaces/%2e%2e/queue`, expectCode: 400 },
    { name: 'external metric, escaped slash', method: 'GET', path: `${E}/namespaces/${NS}/a%2Fb`, ...notFound },
    { name: 'external metric, no metric', method: 'GET', path: `${E}/namespaces/${NS}`, ...notFound },
    { name: 'external metric, extra segment', method: 'GET', path: `${E}/namespaces/${NS}/queue/more`, ...notFound },
    { name: 'external metric, not under namespaces', method: 'GET', path: `${E}/nodes/x/queue`, ...notFound },
    { name: 'external metric, POST', method: 'POST', path: `${E}/namespaces/${NS}/queue`, headers: json, body: '{}', expectCode: 405 },
    { name: 'external metric, DELETE', method: 'DELETE', path: `${E}/namespaces/${NS}/queue`, expectCode: 405 },
    { name: 'external metrics, unknown version', method: 'GET', path: '/apis/external.metrics.k8s.io/v1/namespaces/x/queue', ...notFound },
    { name: 'external metrics discovery', method: 'GET', path: E, expectCode: 200 },

    // custom.metrics.k8s.io
    { name: 'custom metric by name', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/annotated/load`, expectCode: 200 },
    { name: 'custom metric by name, v1beta1', method: 'GET', path: `${C1}/namespaces/${NS}/configmaps/annotated/load`, expectCode: 200 },
    { name: 'custom metric by selector', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/*/load?labelSelector=app%3Dx`, expectCode: 200 },
    { name: 'custom metric, selector matching nothing', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/*/load?labelSelector=app%3Dy`, ...notFound, expectMessage: /^the server could not find the metric load for configmaps$/ },
    { name: 'custom metric, bad selector', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/*/load?labelSelector=%3D%3D`, expectCode: 400 },
    { name: 'custom metric, bad metric selector', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/*/load?metricLabelSelector=a%20notin%20(`, expectCode: 400 },
    { name: 'custom metric named __proto__', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/annotated/__proto__`, ...notFound },
    { name: 'custom metric named constructor', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/*/constructor`, ...notFound },
    { name: 'custom metric, object named constructor', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/constructor/load`, ...notFound },
    { name: 'custom metric, resource __proto__', method: 'GET', path: `${C}/namespaces/${NS}/__proto__/x/load`, ...notFound },
    { name: 'custom metric, resource with an empty group', method: 'GET', path: `${C}/namespaces/${NS}/configmaps./annotated/load`, ...notFound },
    { name: 'custom metric, group __proto__', method: 'GET', path: `${C}/namespaces/${NS}/pods.__proto__/x/load`, ...notFound },
    { name: 'custom metric, root-scoped resource in a namespace', method: 'GET', path: `${C}/namespaces/${NS}/nodes/*/load`, ...notFound },
    { name: 'custom metric, namespaced resource at the root', method: 'GET', path: `${C}/configmaps/*/load`, ...notFound },
    { name: 'custom metric of a namespace', method: 'GET', path: `${C}/namespaces/${NS}/load`, ...notFound },
    { name: 'custom metric of a namespace, metrics path', method: 'GET', path: `${C}/namespaces/${NS}/metrics/load`, ...notFound },
    { name: 'custom metric, object name ..', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/%2e%2e/load`, expectCode: 400 },
    { name: 'custom metric, very long metric name', method: 'GET', path: `${C}/namespaces/${NS}/configmaps/*/${long}`, ...notFound, maxMs: 2000 },
    { name: 'custom metric, PUT', method: 'PUT', path: `${C}/namespaces/${NS}/configmaps/annotated/load`, headers: json, body: '{}', expectCode: 405 },
    { name: 'custom metrics, unknown version', method: 'GET', path: '/apis/custom.metrics.k8s.io/v1alpha9/namespaces/x/pods/*/m', ...notFound },
    { name: 'custom metrics discovery', method: 'GET', path: C, expectCode: 200 },
    { name: 'custom metrics group', method: 'GET', path: '/apis/custom.metrics.k8s.io', expectCode: 200 },
  ];
}
