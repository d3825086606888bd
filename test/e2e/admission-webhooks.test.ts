// Admission webhooks through the real kubectl, served by an HTTPS server in this test process (127.0.0.1, a
// self-signed CA in caBundle, url clientConfig): denials with and without a status code, a JSONPatch mutation,
// timeouts under failurePolicy Ignore and Fail while the API server stays responsive, namespaceSelector and
// objectSelector that keep a webhook from being called, server-side dry run, the scale subresource's Scale, and the
// pods workload controllers create (a sidecar injector and a denial reach a Deployment's and a Job's pods), and every
// other object a controller creates in process (a Deployment's ReplicaSet, a Service's EndpointSlice), and the updates
// in-process writers make (a kubelet's pod status, the deployment controller's scale of a ReplicaSet; a denial of one
// makes the controller retry, the server answering meanwhile).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';
import { ClusterCa, generateCa } from '../../src/auth/pki/cluster-ca.js';

type Json = Record<string, any>;

/** The reviews each path received, in order. */
const received = new Map<string, Json[]>();
/** Requests to /hang, never answered until the suite ends. */
const hanging: ServerResponse[] = [];

function respond(res: ServerResponse, review: Json, response: Json): void {
  const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, ...response } });
  res.writeHead(200, { 'content-type': 'application/json' }).end(body);
}

function handle(path: string, review: Json, res: ServerResponse): void {
  const obj: Json = review.request.object ?? {};
  const labels: Json = obj.metadata?.labels ?? {};
  switch (path) {
    case '/validate':
      if (labels.deny === 'yes') return respond(res, review, { allowed: false, status: { message: 'configmaps labelled deny=yes are not allowed' } });
      if (labels.deny === 'forbidden') return respond(res, review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'not today' } });
      if (labels.deny === 'silent') return respond(res, review, { allowed: false });
      return respond(res, review, { allowed: true, warnings: labels.warn === 'yes' ? ['looked at by the test webhook'] : undefined });
    case '/protect':
      return respond(res, review, { allowed: false, status: { message: 'protected configmaps cannot be deleted' } });
    case '/mutate': {
      const patch = obj.metadata?.labels
        ? [{ op: 'add', path: '/metadata/labels/mutated', value: 'by-webhook' }]
        : [{ op: 'add', path: '/metadata/labels', value: { mutated: 'by-webhook' } }];
      return respond(res, review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
    }
    case '/hang':
      hanging.push(res);
      return;
    case '/inject': {
      // A sidecar injector: a label and a second container.
      const patch = [
        { op: 'add', path: '/metadata/labels/injected', value: 'yes' },
        { op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'proxy:1' } },
      ];
      return respond(res, review, { allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
    }
    case '/deny-pods':
      return respond(res, review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no pods for you' } });
    case '/freeze':
      return respond(res, review, { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'frozen' } });
    default:
      return respond(res, review, { allowed: true });
  }
}

function serve(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'https://127.0.0.1');
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    const list = received.get(url.pathname) ?? [];
    list.push({ ...review, timeoutParam: url.searchParams.get('timeout') });
    received.set(url.pathname, list);
    handle(url.pathname, review, res);
  });
}

interface HookSpec {
  name: string;
  path: string;
  rules: string;
  failurePolicy?: string;
  timeoutSeconds?: number;
  namespaceSelector?: string;
  objectSelector?: string;
}

const configMapRules = `[{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"]}]`;

function configuration(kind: 'Validating' | 'Mutating', name: string, base: string, caBundle: string, hooks: HookSpec[]): string {
  const items = hooks.map((h) => `- name: ${h.name}
  clientConfig:
    url: ${base}${h.path}
    caBundle: ${caBundle}
  rules: ${h.rules}
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: ${h.failurePolicy ?? 'Fail'}
  timeoutSeconds: ${h.timeoutSeconds ?? 5}
  namespaceSelector: ${h.namespaceSelector ?? '{}'}
  objectSelector: ${h.objectSelector ?? '{}'}
`);
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ${kind}WebhookConfiguration
metadata:
  name: ${name}
webhooks:
${items.join('')}`;
}

const configMap = (name: string, ns: string, labels: Record<string, string>) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: "${name}"
  namespace: ${ns}
  labels: ${JSON.stringify(labels)}
data:
  a: b
`;

describe('admission webhooks with kubectl', () => {
  let server: Server;
  let base = '';
  let caBundle = '';
  before(async () => {
    const ca = await generateCa('webhook-e2e-ca');
    const serving = await new ClusterCa(ca.certPem, ca.keyPem).issueKeyPair('server', [{ CN: ['webhook-e2e'] }], 1, { dns: [], ips: ['127.0.0.1'] });
    server = createServer({ key: serving.keyPem, cert: serving.certPem }, serve);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    caBundle = Buffer.from(ca.certPem).toString('base64');
  });
  after(async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  const env = useKubectlServer({ args: [...noAddons] });
  const k = () => env.k;
  const calls = (path: string, ns: string) => (received.get(path) ?? []).filter((r) => r.request.namespace === ns);

  it('registers webhooks in namespaces labelled for them and prints their columns', async () => {
    for (const ns of ['hooks', 'dry', 'plain']) await k().ok(['create', 'namespace', ns]);
    await k().ok(['label', 'namespace', 'hooks', 'dry', 'webhooks=on']);
    const on = '{matchLabels: {webhooks: "on"}}';
    const validating = configuration('Validating', 'e2e-validating', base, caBundle, [
      { name: 'deny.e2e.bonsai.dev', path: '/validate', rules: configMapRules, namespaceSelector: on },
      { name: 'record.e2e.bonsai.dev', path: '/record', rules: configMapRules, namespaceSelector: on, objectSelector: '{matchLabels: {watched: "yes"}}' },
      { name: 'protect.e2e.bonsai.dev', path: '/protect', rules: `[{apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["configmaps"]}]`, objectSelector: '{matchLabels: {protected: "yes"}}' },
      { name: 'scale.e2e.bonsai.dev', path: '/scale', rules: `[{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["deployments/scale"]}]`, namespaceSelector: on },
    ]);
    const mutating = configuration('Mutating', 'e2e-mutating', base, caBundle, [
      { name: 'label.e2e.bonsai.dev', path: '/mutate', rules: configMapRules, namespaceSelector: on },
    ]);
    const out = await k().ok(['apply', '-f', '-'], { input: `${validating}---\n${mutating}` });
    assert.match(out, /validatingwebhookconfiguration.admissionregistration.k8s.io\/e2e-validating created/);
    assert.match(out, /mutatingwebhookconfiguration.admissionregistration.k8s.io\/e2e-mutating created/);
    const table = await k().ok(['get', 'validatingwebhookconfigurations']);
    assert.match(table, /^NAME\s+WEBHOOKS\s+AGE\n/);
    assert.match(table, /^e2e-validating\s+4\s+\d+s\n/m);
    assert.match(await k().ok(['get', 'mutatingwebhookconfigurations']), /^e2e-mutating\s+1\s+\d+s\n/m);
  });

  it('denies a labelled ConfigMap with the webhook\'s message, with or without a status code', async () => {
    const plain = await k().run(['create', '-f', '-'], { input: configMap('no', 'hooks', { deny: 'yes' }) });
    assert.notEqual(plain.code, 0);
    // No code in the webhook's status: a 400 without a reason, which kubectl prints without one.
    assert.equal(plain.stderr.trim(), 'Error from server: error when creating "STDIN": admission webhook "deny.e2e.bonsai.dev" denied the request: configmaps labelled deny=yes are not allowed');
    const coded = await k().fails(['create', '-f', '-'], { input: configMap('no', 'hooks', { deny: 'forbidden' }) });
    assert.equal(coded.trim(), 'Error from server (Forbidden): error when creating "STDIN": admission webhook "deny.e2e.bonsai.dev" denied the request: not today');
    const silent = await k().fails(['create', '-f', '-'], { input: configMap('no', 'hooks', { deny: 'silent' }) });
    assert.equal(silent.trim(), 'Error from server: error when creating "STDIN": admission webhook "deny.e2e.bonsai.dev" denied the request without explanation');
    assert.match(await k().fails(['get', 'configmap', 'no', '-n', 'hooks']), /NotFound/);
    // The review the webhook got: an admission.k8s.io/v1 request for the v1 ConfigMap, the mutating webhook's label in it.
    const review = calls('/validate', 'hooks').find((r) => r.request.object?.metadata?.labels?.deny === 'yes');
    assert.ok(review);
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.timeoutParam, '5s');
    assert.deepEqual(review.request.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(review.request.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.equal(review.request.operation, 'CREATE');
    assert.equal(review.request.name, 'no');
    assert.equal(review.request.dryRun, false);
    assert.equal(review.request.object.metadata.labels.mutated, 'by-webhook');
    assert.equal(review.request.options?.kind, 'CreateOptions');
    assert.equal(review.request.options?.apiVersion, 'meta.k8s.io/v1');
    assert.equal(review.request.options?.fieldManager, 'kubectl-create');
  });

  it('mutates through a JSONPatch, and passes a webhook\'s warnings to kubectl', async () => {
    const r = await k().run(['create', 'configmap', 'yes', '-n', 'hooks', '--from-literal=a=b']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await k().ok(['get', 'configmap', 'yes', '-n', 'hooks', '-o', 'jsonpath={.metadata.labels.mutated}']), 'by-webhook');
    const warned = await k().run(['label', 'configmap', 'yes', '-n', 'hooks', 'warn=yes']);
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /^Warning: looked at by the test webhook$/m);
    // Namespaces the selector leaves out are not touched.
    await k().ok(['create', 'configmap', 'untouched', '-n', 'plain', '--from-literal=a=b']);
    assert.equal(await k().ok(['get', 'configmap', 'untouched', '-n', 'plain', '-o', 'jsonpath={.metadata.labels}']), '');
    assert.equal(calls('/mutate', 'plain').length, 0);
    assert.equal(calls('/validate', 'plain').length, 0);
  });

  it('calls webhooks for the pods workload controllers create: an injector mutates them, a denial fails the create', async () => {
    await k().ok(['create', 'namespace', 'inject']);
    await k().ok(['label', 'namespace', 'inject', 'inject=yes']);
    const podRules = `[{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["pods"]}]`;
    await k().ok(['apply', '-f', '-'], { input: configuration('Mutating', 'pod-injector', base, caBundle, [{ name: 'inject.e2e.bonsai.dev', path: '/inject', rules: podRules, namespaceSelector: '{matchLabels: {inject: "yes"}}' }]) });
    await k().ok(['apply', '-f', '-'], { input: configuration('Validating', 'pod-guard', base, caBundle, [{ name: 'deny-pods.e2e.bonsai.dev', path: '/deny-pods', rules: podRules, namespaceSelector: '{matchLabels: {inject: "yes"}}', objectSelector: '{matchLabels: {app: denied}}' }]) });
    await k().ok(['create', 'deployment', 'web', '-n', 'inject', '--image=nginx', '--replicas=2']);
    await k().ok(['create', 'job', 'once', '-n', 'inject', '--image=busybox']);
    const pods = await eventually(async () => {
      const list = JSON.parse(await k().ok(['get', 'pods', '-n', 'inject', '-o', 'json'])) as Json;
      return list.items.length === 3 && list.items;
    }, 20_000, 'the deployment\'s and the job\'s pods');
    for (const pod of pods as Json[]) {
      assert.equal(pod.metadata.labels.injected, 'yes', pod.metadata.name);
      assert.deepEqual(pod.spec.containers.map((c: Json) => c.name).slice(-1), ['sidecar'], pod.metadata.name);
    }
    const reviews = calls('/inject', 'inject');
    assert.ok(reviews.some((r) => r.request.userInfo.username === 'system:serviceaccount:kube-system:replicaset-controller'), 'the ReplicaSet controller is the user');
    assert.ok(reviews.some((r) => r.request.userInfo.username === 'system:serviceaccount:kube-system:job-controller'), 'the Job controller is the user');
    await k().ok(['create', 'deployment', 'denied', '-n', 'inject', '--image=nginx']);
    const message = await eventually(async () => {
      const events = await k().ok(['get', 'events', '-n', 'inject', '--field-selector', 'reason=FailedCreate', '-o', 'jsonpath={.items[*].message}']);
      return events.includes('no pods for you') && events;
    }, 20_000, 'a FailedCreate event');
    assert.match(message, /Error creating: admission webhook "deny-pods\.e2e\.bonsai\.dev" denied the request: no pods for you/);
    await k().ok(['delete', 'mutatingwebhookconfiguration', 'pod-injector']);
    await k().ok(['delete', 'validatingwebhookconfiguration', 'pod-guard']);
  });

  it('calls webhooks for every object a controller creates: a Deployment\'s ReplicaSet (mutated), a Service\'s EndpointSlice', async () => {
    await k().ok(['create', 'namespace', 'ctrl']);
    await k().ok(['label', 'namespace', 'ctrl', 'ctrl=yes']);
    const rules = `[{apiGroups: ["apps", "discovery.k8s.io"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["replicasets", "endpointslices"]}]`;
    await k().ok(['apply', '-f', '-'], { input: configuration('Mutating', 'controller-writes', base, caBundle, [{ name: 'label.e2e.bonsai.dev', path: '/mutate', rules, namespaceSelector: '{matchLabels: {ctrl: "yes"}}' }]) });
    await k().ok(['create', 'deployment', 'web', '-n', 'ctrl', '--image=nginx']);
    await k().ok(['expose', 'deployment', 'web', '-n', 'ctrl', '--port=80']);
    // The mutation took: the ReplicaSet carries the webhook's label (the EndpointSlice's labels are the controller's own
    // on its next update, as upstream's).
    await eventually(async () => (await k().ok(['get', 'replicasets', '-n', 'ctrl', '-l', 'mutated=by-webhook', '-o', 'name'])).startsWith('replicaset.apps/web-'), 20_000, 'the mutated ReplicaSet');
    await eventually(async () => calls('/mutate', 'ctrl').length >= 2, 20_000, 'the EndpointSlice\'s review');
    const users = calls('/mutate', 'ctrl').map((r) => `${r.request.kind.kind} ${r.request.userInfo.username}`).sort();
    assert.deepEqual(users, ['EndpointSlice system:serviceaccount:kube-system:endpointslice-controller', 'ReplicaSet system:serviceaccount:kube-system:deployment-controller']);
    await k().ok(['delete', 'mutatingwebhookconfiguration', 'controller-writes']);
  });

  it('calls webhooks for in-process updates: a kubelet\'s pod status, a ReplicaSet\'s scale; a denial is retried', async () => {
    await k().ok(['create', 'namespace', 'upd']);
    await k().ok(['label', 'namespace', 'upd', 'upd=yes']);
    const rules = `[{apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/status"]}, {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["replicasets"]}]`;
    await k().ok(['apply', '-f', '-'], { input: configuration('Validating', 'update-watch', base, caBundle, [{ name: 'updates.e2e.bonsai.dev', path: '/updates', rules, namespaceSelector: '{matchLabels: {upd: "yes"}}' }]) });
    await k().ok(['create', 'deployment', 'web', '-n', 'upd', '--image=nginx']);
    // The kubelet reports the pod's status as its node.
    const status = await eventually(async () => calls('/updates', 'upd').find((r) => r.request.kind.kind === 'Pod'), 20_000, 'the kubelet\'s pod status review');
    assert.equal(status.request.subResource, 'status');
    assert.equal(status.request.operation, 'UPDATE');
    assert.match(status.request.userInfo.username, /^system:node:/);
    // The deployment controller scales its ReplicaSet.
    await k().ok(['scale', 'deployment', 'web', '-n', 'upd', '--replicas=2']);
    const scaled = await eventually(async () => calls('/updates', 'upd').find((r) => r.request.kind.kind === 'ReplicaSet' && r.request.object.spec.replicas === 2), 20_000, 'the ReplicaSet scale review');
    assert.equal(scaled.request.userInfo.username, 'system:serviceaccount:kube-system:deployment-controller');
    assert.equal(scaled.request.oldObject.spec.replicas, 1);
    // A denied scale: the controller tries again (each try reviewed), the server keeps answering, nothing is written.
    await k().ok(['apply', '-f', '-'], { input: configuration('Validating', 'freeze', base, caBundle, [{ name: 'freeze.e2e.bonsai.dev', path: '/freeze', rules: `[{apiGroups: ["apps"], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["replicasets"]}]`, namespaceSelector: '{matchLabels: {upd: "yes"}}' }]) });
    await k().ok(['scale', 'deployment', 'web', '-n', 'upd', '--replicas=3']);
    await eventually(async () => calls('/freeze', 'upd').length >= 3, 20_000, 'the denied scale, tried again');
    assert.equal(await k().ok(['get', 'deployment', 'web', '-n', 'upd', '-o', 'jsonpath={.spec.replicas}']), '3');
    const replicas = async () => k().ok(['get', 'replicasets', '-n', 'upd', '-o', 'jsonpath={.items[*].spec.replicas}']);
    assert.equal(await replicas(), '2');
    // Once the denying webhook is gone, a retry goes through.
    await k().ok(['delete', 'validatingwebhookconfiguration', 'freeze']);
    await eventually(async () => (await replicas()) === '3', 20_000, 'the ReplicaSet scaled to 3');
    await k().ok(['delete', 'validatingwebhookconfiguration', 'update-watch']);
  });

  it('does not call a webhook whose namespaceSelector or objectSelector does not match', async () => {
    await k().ok(['create', '-f', '-'], { input: configMap('watched', 'hooks', { watched: 'yes' }) });
    await k().ok(['create', '-f', '-'], { input: configMap('unwatched', 'hooks', { watched: 'no' }) });
    await k().ok(['create', '-f', '-'], { input: configMap('elsewhere', 'plain', { watched: 'yes' }) });
    const names = (received.get('/record') ?? []).map((r) => `${r.request.namespace}/${r.request.name}`);
    assert.deepEqual(names, ['hooks/watched']);
    // objectSelector matches the old object too: removing the label on update is still seen.
    await k().ok(['label', 'configmap', 'watched', '-n', 'hooks', 'watched-']);
    const last = (received.get('/record') ?? []).at(-1);
    assert.equal(last?.request.operation, 'UPDATE');
    assert.equal(last?.request.oldObject.metadata.labels.watched, 'yes');
  });

  it('refuses a delete, the review carrying the old object and the DeleteOptions', async () => {
    await k().ok(['create', '-f', '-'], { input: configMap('keep', 'plain', { protected: 'yes' }) });
    const denied = await k().fails(['delete', 'configmap', 'keep', '-n', 'plain']);
    assert.equal(denied.trim(), 'Error from server: admission webhook "protect.e2e.bonsai.dev" denied the request: protected configmaps cannot be deleted');
    assert.equal(await k().ok(['get', 'configmap', 'keep', '-n', 'plain', '-o', 'name']), 'configmap/keep\n');
    const review = (received.get('/protect') ?? []).at(-1);
    assert.equal(review?.request.operation, 'DELETE');
    assert.equal(review?.request.object, null);
    assert.equal(review?.request.oldObject.metadata.name, 'keep');
    assert.equal(review?.request.options.kind, 'DeleteOptions');
    assert.equal(review?.request.options.propagationPolicy, 'Background');
    // Without the label the webhook is not asked.
    await k().ok(['label', 'configmap', 'keep', '-n', 'plain', 'protected-']);
    await k().ok(['delete', 'configmap', 'keep', '-n', 'plain']);
    assert.equal((received.get('/protect') ?? []).length, 1);
  });

  it('calls webhooks with sideEffects None on a server-side dry run', async () => {
    const before = calls('/mutate', 'dry').length;
    const out = await k().ok(['create', 'configmap', 'trial', '-n', 'dry', '--from-literal=a=b', '--dry-run=server', '-o', 'jsonpath={.metadata.labels.mutated}']);
    assert.equal(out, 'by-webhook');
    assert.match(await k().fails(['get', 'configmap', 'trial', '-n', 'dry']), /NotFound/);
    const reviews = calls('/mutate', 'dry');
    assert.equal(reviews.length, before + 1);
    assert.equal(reviews.at(-1)?.request.dryRun, true);
    assert.deepEqual(reviews.at(-1)?.request.options?.dryRun, ['All']);
    const denied = await k().fails(['create', '-f', '-', '--dry-run=server'], { input: configMap('no', 'dry', { deny: 'yes' }) });
    assert.match(denied, /admission webhook "deny.e2e.bonsai.dev" denied the request: configmaps labelled deny=yes are not allowed/);
  });

  it('sends the scale subresource to a webhook as an autoscaling/v1 Scale', async () => {
    await k().ok(['create', 'deployment', 'web', '-n', 'hooks', '--image=nginx', '--replicas=1']);
    assert.match(await k().ok(['scale', 'deploy', 'web', '-n', 'hooks', '--replicas', '3']), /deployment.apps\/web scaled/);
    const review = (received.get('/scale') ?? []).at(-1);
    assert.ok(review, 'the scale webhook was called');
    assert.deepEqual(review.request.kind, { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.deepEqual(review.request.resource, { group: 'apps', version: 'v1', resource: 'deployments' });
    assert.equal(review.request.subResource, 'scale');
    assert.equal(review.request.object.apiVersion, 'autoscaling/v1');
    assert.equal(review.request.object.kind, 'Scale');
    assert.equal(review.request.object.spec.replicas, 3);
    assert.equal(review.request.oldObject.spec.replicas, 1);
  });

  it('lets a request through when a webhook times out under Ignore, refuses it under Fail', async () => {
    const hang = (policy: string) => ({ name: `hang-${policy.toLowerCase()}.e2e.bonsai.dev`, path: '/hang', rules: configMapRules, failurePolicy: policy, timeoutSeconds: 1, objectSelector: `{matchLabels: {hang: "${policy.toLowerCase()}"}}` });
    await k().ok(['apply', '-f', '-'], { input: configuration('Validating', 'e2e-hang', base, caBundle, [hang('Ignore'), hang('Fail')]) });
    const started = Date.now();
    await k().ok(['create', '-f', '-'], { input: configMap('ignored', 'plain', { hang: 'ignore' }) });
    assert.ok(Date.now() - started >= 1000, 'the create waited for the webhook\'s timeout');
    assert.equal(await k().ok(['get', 'configmap', 'ignored', '-n', 'plain', '-o', 'name']), 'configmap/ignored\n');
    const failed = await k().fails(['create', '-f', '-'], { input: configMap('refused', 'plain', { hang: 'fail' }) });
    const port = new URL(base).port;
    assert.equal(failed.trim(), `Error from server (InternalError): error when creating "STDIN": Internal error occurred: failed calling webhook "hang-fail.e2e.bonsai.dev": failed to call webhook: Post "https://127.0.0.1:${port}/hang?timeout=1s": context deadline exceeded`);
    assert.match(await k().fails(['get', 'configmap', 'refused', '-n', 'plain']), /NotFound/);
  });

  it('stays responsive while a webhook call hangs', async () => {
    await k().ok(['apply', '-f', '-'], { input: configuration('Validating', 'e2e-slow', base, caBundle, [
      { name: 'slow.e2e.bonsai.dev', path: '/hang', rules: configMapRules, failurePolicy: 'Fail', timeoutSeconds: 6, objectSelector: '{matchLabels: {hang: "slow"}}' },
    ]) });
    const waiting = hanging.length;
    const file = join(mkdtempSync(join(tmpdir(), 'bonsai-webhook-')), 'slow.yaml');
    writeFileSync(file, configMap('slow', 'plain', { hang: 'slow' }));
    const create = k().start(['create', '-f', file]);
    let createExited = false;
    void create.exited.then(() => (createExited = true));
    await eventually(() => hanging.length > waiting, 5_000, 'the webhook call to arrive');
    assert.match(await k().ok(['get', 'ns', 'plain']), /^plain\s+Active/m);
    assert.match(await k().ok(['get', 'configmaps', '-n', 'hooks', '-o', 'name']), /configmap\/yes/);
    assert.equal(createExited, false, 'the create still waits for its webhook while the server answers others');
    assert.notEqual(await create.exited, 0);
    assert.match(create.err(), /failed calling webhook "slow.e2e.bonsai.dev": failed to call webhook: Post "https:\/\/127\.0\.0\.1:\d+\/hang\?timeout=6s": context deadline exceeded/);
  });
});
