// Decoding kubectl's protobuf request bodies. Fixtures under test/fixtures/protobuf are bytes recorded from
// real kubectl 1.32 (`kubectl create ...` against a recording HTTP server); see the README-style list below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeProtobufBody } from '../../src/api/protobuf.js';
import { formatMicroTime, formatTime } from '../../src/api/protobuf-json.js';
import { formatGoDuration } from '../../src/util/duration.js';
import { ApiError } from '../../src/machinery/errors.js';
import { projectRoot } from '../../src/util/paths.js';
// A tiny protobuf writer for hand-made bodies (special types kubectl never sends, malformed input).
import { envelope, ld, vi } from '../helpers/hostile-protobuf.js';

const fixture = (name: string) => readFileSync(join(projectRoot, 'test', 'fixtures', 'protobuf', `${name}.bin`));
const decode = (name: string) => decodeProtobufBody(fixture(name));

const expect400 = (body: Buffer) =>
  assert.throws(() => decodeProtobufBody(body), (err: unknown) => err instanceof ApiError && err.code === 400 && err.reason === 'BadRequest');

/** Walks into decoded JSON: at(obj, 'spec', 'ports', 0). */
function at(v: unknown, ...path: (string | number)[]): unknown {
  let cur = v;
  for (const k of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[k];
  }
  return cur;
}
const has = (v: unknown, ...path: (string | number)[]) => {
  const parent = at(v, ...path.slice(0, -1));
  return typeof parent === 'object' && parent !== null && Object.prototype.hasOwnProperty.call(parent, path[path.length - 1]);
};

test('deployment: typeMeta from the envelope, replicas, labels, zero-valued Go fields omitted', () => {
  const d = (decode('deployment'));
  assert.equal(at(d, 'apiVersion'), 'apps/v1');
  assert.equal(at(d, 'kind'), 'Deployment');
  assert.deepEqual(at(d, 'metadata'), { name: 'web', labels: { app: 'web' } });
  assert.equal(at(d, 'spec', 'replicas'), 3);
  assert.deepEqual(at(d, 'spec', 'selector'), { matchLabels: { app: 'web' } });
  assert.deepEqual(at(d, 'spec', 'template', 'spec', 'containers'), [{ name: 'nginx', image: 'nginx', resources: {} }]);
  assert.deepEqual(at(d, 'spec', 'strategy'), {});
  assert.deepEqual(at(d, 'status'), {});
  assert.equal(has(d, 'spec', 'minReadySeconds'), false);
  assert.equal(has(d, 'metadata', 'creationTimestamp'), false);
});

test('deployment --replicas=0 keeps replicas: 0 (a pointer field)', () => {
  const d = (decode('deployment-zero'));
  assert.equal(at(d, 'metadata', 'name'), 'web0');
  assert.equal(at(d, 'spec', 'replicas'), 0);
});

test('namespace, serviceaccount, configmap, quota', () => {
  assert.deepEqual(decode('namespace'), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a' }, spec: {}, status: {} });
  assert.deepEqual(decode('serviceaccount'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot' } });
  assert.deepEqual(decode('configmap'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg' }, data: { a: '1', b: 'hello' } });
  const q = (decode('quota'));
  assert.deepEqual(at(q, 'spec', 'hard'), { cpu: '1', memory: '1G', pods: '2' });
});

test('secret data values are base64 strings', () => {
  const s = (decode('secret'));
  assert.equal(at(s, 'kind'), 'Secret');
  assert.deepEqual(at(s, 'data'), { user: Buffer.from('admin').toString('base64'), pass: Buffer.from('s3cr3t!').toString('base64') });
});

test('service: targetPort as number or string, nodePort, type', () => {
  const s = (decode('service'));
  assert.deepEqual(at(s, 'spec', 'ports'), [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
  assert.equal(at(s, 'spec', 'type'), 'ClusterIP');
  assert.equal(has(s, 'spec', 'clusterIP'), false);
  const np = (decode('service-nodeport'));
  assert.deepEqual(at(np, 'spec', 'ports'), [{ name: '8443-https', protocol: 'TCP', port: 8443, targetPort: 'https', nodePort: 30080 }]);
});

test('cronjob, role, pdb, priorityclass, ingress', () => {
  const c = (decode('cronjob'));
  assert.equal(at(c, 'apiVersion'), 'batch/v1');
  assert.equal(at(c, 'spec', 'schedule'), '*/1 * * * *');
  assert.equal(at(c, 'spec', 'jobTemplate', 'spec', 'template', 'spec', 'restartPolicy'), 'OnFailure');

  const r = (decode('role'));
  assert.equal(at(r, 'apiVersion'), 'rbac.authorization.k8s.io/v1');
  assert.deepEqual(at(r, 'rules'), [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]);

  const p = (decode('pdb'));
  assert.equal(at(p, 'spec', 'minAvailable'), 1);
  assert.deepEqual(at(p, 'spec', 'selector'), { matchLabels: { app: 'x' } });
  assert.equal(at(p, 'status', 'disruptionsAllowed'), 0); // `json:"disruptionsAllowed"` has no omitempty

  assert.deepEqual(decode('priorityclass'), {
    apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'high' },
    value: 1000, description: 'high prio', preemptionPolicy: 'PreemptLowerPriority',
  });

  const i = (decode('ingress'));
  assert.equal(at(i, 'spec', 'ingressClassName'), 'nginx');
  // IngressRule.ingressRuleValue is inlined: `http` sits next to `host`
  assert.deepEqual(at(i, 'spec', 'rules'), [{ host: 'foo.com', http: { paths: [{ path: '/bar', pathType: 'Prefix', backend: { service: { name: 'svc1', port: { number: 8080 } } } }] } }]);
});

test('job --from=cronjob: timestamps, explicit false/0 pointers, inlined structs, probes', () => {
  const j = (decode('job'));
  assert.equal(at(j, 'kind'), 'Job');
  assert.deepEqual(at(j, 'metadata', 'ownerReferences'), [{ apiVersion: 'batch/v1', kind: 'CronJob', name: 'x', uid: '1234-5678', controller: true }]);
  assert.equal(at(j, 'metadata', 'annotations', 'cronjob.kubernetes.io/instantiate'), 'manual');
  assert.equal(at(j, 'spec', 'backoffLimit'), 0);
  assert.equal(at(j, 'spec', 'suspend'), false);
  assert.equal(at(j, 'spec', 'ttlSecondsAfterFinished'), 0);
  const tpl = at(j, 'spec', 'template');
  assert.equal(at(tpl, 'metadata', 'creationTimestamp'), '2024-01-02T03:04:05Z');
  assert.deepEqual(at(tpl, 'metadata', 'annotations'), { note: '' });
  const spec = at(tpl, 'spec');
  assert.equal(at(spec, 'terminationGracePeriodSeconds'), 0);
  assert.equal(at(spec, 'automountServiceAccountToken'), false);
  assert.equal(at(spec, 'enableServiceLinks'), false);
  assert.deepEqual(at(spec, 'securityContext'), { runAsUser: 0, runAsNonRoot: false });
  // Volume.volumeSource and ConfigMapVolumeSource.localObjectReference are inlined
  assert.deepEqual(at(spec, 'volumes'), [
    { name: 'cfg', configMap: { name: 'app-config', defaultMode: 420, optional: false } },
    { name: 'scratch', emptyDir: { sizeLimit: '64Mi' } },
  ]);
  const c = at(spec, 'containers', 0);
  assert.deepEqual(at(c, 'args'), ['']);
  assert.deepEqual(at(c, 'env'), [{ name: 'EMPTY' }, { name: 'FROM_CM', valueFrom: { configMapKeyRef: { name: 'app-config', key: 'k' } } }]);
  assert.deepEqual(at(c, 'ports'), [{ name: 'http', containerPort: 8080 }]);
  assert.deepEqual(at(c, 'resources'), { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '0' } });
  // Probe.handler is inlined; port is an IntOrString
  assert.deepEqual(at(c, 'readinessProbe'), { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 });
  assert.deepEqual(at(c, 'livenessProbe'), { tcpSocket: { port: 8080 } });
  assert.deepEqual(at(c, 'securityContext'), { privileged: false, readOnlyRootFilesystem: true });
});

test('auth can-i and create token bodies', () => {
  const r = (decode('selfsubjectaccessreview'));
  assert.equal(at(r, 'apiVersion'), 'authorization.k8s.io/v1');
  assert.equal(at(r, 'kind'), 'SelfSubjectAccessReview');
  assert.deepEqual(at(r, 'spec'), { resourceAttributes: { namespace: 'default', verb: 'get', resource: 'pods' } });
  const t = (decode('token'));
  assert.equal(at(t, 'kind'), 'TokenRequest');
  assert.equal(at(t, 'spec', 'expirationSeconds'), 3600);
});

test('special types: Time in a map, MicroTime, Duration, int64, meta kinds', () => {
  // policy/v1 PodDisruptionBudget status.disruptedPods: map<string, Time>
  const pdb = envelope('policy/v1', 'PodDisruptionBudget', Buffer.concat([
    ld(1, ld(1, 'p'), vi(7, 5)),
    ld(3, ld(2, ld(1, 'pod-a'), ld(2, vi(1, 1704164645))), ld(2, ld(1, 'pod-b'), ld(2))),
  ]));
  const p = (decodeProtobufBody(pdb));
  assert.deepEqual(at(p, 'metadata'), { name: 'p', generation: 5 });
  assert.deepEqual(at(p, 'status', 'disruptedPods'), { 'pod-a': '2024-01-02T03:04:05Z', 'pod-b': null });

  // events.k8s.io/v1 Event.eventTime is a MicroTime
  const ev = envelope('events.k8s.io/v1', 'Event', Buffer.concat([ld(1, ld(1, 'e')), ld(2, vi(1, 1704164645), vi(2, 123456789)), ld(7, 'Started')]));
  const e = (decodeProtobufBody(ev));
  assert.equal(at(e, 'eventTime'), '2024-01-02T03:04:05.123456Z');
  assert.equal(at(e, 'reason'), 'Started');

  // metrics.k8s.io NodeMetrics: Time, Duration, map<string, Quantity>
  const nm = envelope('metrics.k8s.io/v1beta1', 'NodeMetrics', Buffer.concat([
    ld(1, ld(1, 'n1')), ld(2, vi(1, 0)), ld(3, vi(1, 90_500_000_000n)), ld(4, ld(1, 'cpu'), ld(2, ld(1, '250m'))),
  ]));
  assert.deepEqual(decodeProtobufBody(nm), {
    apiVersion: 'metrics.k8s.io/v1beta1', kind: 'NodeMetrics', metadata: { name: 'n1' },
    timestamp: '1970-01-01T00:00:00Z', window: '1m30.5s', usage: { cpu: '250m' },
  });

  // meta kinds fall back to meta.v1: DeleteOptions with int64 gracePeriodSeconds 0 and a propagation policy
  const del = envelope('v1', 'DeleteOptions', Buffer.concat([vi(1, 0), ld(4, 'Foreground')]));
  assert.deepEqual(decodeProtobufBody(del), { apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0, propagationPolicy: 'Foreground' });
});

test('formatters follow Go', () => {
  assert.equal(formatTime(1704164645), '2024-01-02T03:04:05Z');
  assert.equal(formatMicroTime(1704164645, 5000), '2024-01-02T03:04:05.000005Z');
  const cases: [bigint, string][] = [
    [0n, '0s'], [1n, '1ns'], [1500n, '1.5µs'], [100_000_000n, '100ms'], [1_000_000_000n, '1s'],
    [3_600_000_000_000n, '1h0m0s'], [-90_000_000_000n, '-1m30s'], [3_723_400_000_000n, '1h2m3.4s'],
  ];
  for (const [ns, s] of cases) assert.equal(formatGoDuration(ns), s, `${ns}ns`);
});

test('malformed bodies are 400 BadRequest', () => {
  const good = fixture('deployment');
  expect400(Buffer.alloc(0));
  expect400(Buffer.from('{"kind":"Deployment"}'));
  expect400(Buffer.concat([Buffer.from('k8s\x01', 'latin1'), good.subarray(4)]));
  for (const cut of [5, 10, 30, good.length - 1]) expect400(good.subarray(0, cut));
  expect400(Buffer.concat([good, Buffer.from([0xff, 0xff, 0xff])]));
  expect400(Buffer.concat([good, vi(9, 1)]));
  expect400(envelope('apps/v1', 'NoSuchKind', Buffer.alloc(0)));
  expect400(envelope('example.com/v1', 'Deployment', Buffer.alloc(0)));
  expect400(envelope('apps/v9', 'Deployment', Buffer.alloc(0)));
  expect400(envelope('apps/v1', 'k8s.io.api.core.v1.Pod', Buffer.alloc(0)));
  expect400(envelope('', '', Buffer.alloc(0)));
  // raw that is not a valid message: a length running past the end, an invalid wire type
  expect400(envelope('v1', 'ConfigMap', Buffer.from([0x0a, 0x20, 0x01])));
  expect400(envelope('v1', 'ConfigMap', Buffer.from([0x0f, 0x01])));
  // invalid JSON inside a FieldsV1 (managedFields[0].fieldsV1)
  expect400(envelope('v1', 'ConfigMap', ld(1, ld(17, ld(7, ld(1, '{not json'))))));
});
