// Admission webhooks against a real HTTPS server on 127.0.0.1 with a CA made for the test: allow, deny, JSON patch,
// warnings, timeouts under both failure policies, selectors, dry run and service references.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ScaledClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { ClusterCa, generateCa } from '../../src/auth/pki/cluster-ca.js';
import { ApiError } from '../../src/machinery/errors.js';
import type { KObject } from '../../src/machinery/types.js';
import type { AdmissionAttributes } from '../../src/admission/types.js';
import { mutatingWebhookPlugin, validatingWebhookPlugin } from '../../src/admission/webhook/index.js';

type Review = { request: Record<string, unknown> & { uid: string; object: KObject | null } };

let server: Server;
let port = 0;
let caBundle = '';
const seen: Array<{ path: string; review: Review }> = [];
const held: ServerResponse[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Review;
    const path = (req.url ?? '').split('?')[0];
    seen.push({ path: req.url ?? '', review });
    const uid = review.request.uid;
    const reply = (response: Record<string, unknown>) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, ...response } }));
    };
    if (path === '/slow') { held.push(res); return; }
    if (path === '/allow') return reply({ allowed: true });
    if (path === '/deny') return reply({ allowed: false, status: { message: 'nope' } });
    if (path === '/deny403') return reply({ allowed: false, status: { code: 403, reason: 'Forbidden', message: 'no way' } });
    if (path === '/warn') return reply({ allowed: true, warnings: ['careful now'] });
    if (path === '/baduid') return res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'other', allowed: true } }));
    const patched = (patch: unknown) => reply({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
    // Hostile answers: what a broken or malicious webhook may send back.
    if (path === '/notjson') return res.end('<html>oops</html>');
    if (path === '/huge') return res.end(`{"response":{"uid":"${uid}","allowed":true,"warnings":["${'w'.repeat(4 * 1024 * 1024)}"]}}`);
    if (path === '/protopatch') return patched([{ op: 'add', path: '/metadata/__proto__/polluted', value: 'yes' }, { op: 'add', path: '/constructor/prototype/polluted', value: 'yes' }]);
    if (path === '/toarray') return patched([{ op: 'replace', path: '', value: [1, 2, 3] }]);
    if (path === '/deeppatch') return patched([{ op: 'add', path: '/data/deep', value: JSON.parse(`${'{"a":'.repeat(1200)}1${'}'.repeat(1200)}`) }]);
    if (path === '/badpatch') return reply({ allowed: true, patchType: 'JSONPatch', patch: 'not base64 json!!' });
    if (path === '/allowedstring') return reply({ allowed: 'yes' });
    if (path === '/label') {
      const patch = [{ op: 'add', path: '/metadata/labels/mutated', value: 'yes' }];
      return reply({ allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
    }
    res.statusCode = 404;
    res.end('not found');
  });
}

before(async () => {
  const ca = await generateCa('webhook-test-ca');
  const issuer = new ClusterCa(ca.certPem, ca.keyPem);
  const serving = await issuer.issueKeyPair('server', [{ CN: ['webhook'] }], 1, { dns: ['hook.default.svc', 'localhost'], ips: ['127.0.0.1'] });
  caBundle = Buffer.from(ca.certPem).toString('base64');
  server = createServer({ key: serving.keyPem, cert: serving.certPem }, handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
});

after(() => {
  for (const r of held) r.destroy();
  server.closeAllConnections();
  server.close();
});

function cluster() {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ScaledClock(1), createLogger('silent'));
  bootstrap(reg);
  return reg;
}

function hook(name: string, path: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name, sideEffects: 'None', admissionReviewVersions: ['v1'],
    clientConfig: { url: `https://127.0.0.1:${port}${path}`, caBundle },
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    ...extra,
  };
}

async function configure(reg: Registry, kind: 'validating' | 'mutating', webhooks: Array<Record<string, unknown>>, name = 'cfg'): Promise<void> {
  const plural = `${kind}webhookconfigurations`;
  const Kind = kind === 'validating' ? 'ValidatingWebhookConfiguration' : 'MutatingWebhookConfiguration';
  await reg.create(reg.find('admissionregistration.k8s.io', 'v1', plural)!, '', { apiVersion: 'admissionregistration.k8s.io/v1', kind: Kind, metadata: { name }, webhooks });
}

function attrs(reg: Registry, over: Partial<AdmissionAttributes> = {}, labels: Record<string, string> = {}): AdmissionAttributes {
  return {
    operation: 'CREATE', def: reg.find('', 'v1', 'configmaps')!, resource: { group: '', version: 'v1', resource: 'configmaps' },
    kind: { group: '', version: 'v1', kind: 'ConfigMap' }, subresource: '', namespace: 'default', name: 'cm1',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: 'default', labels }, data: { a: 'b' } },
    oldObject: undefined, user: { username: 'alice', groups: ['system:authenticated'] }, dryRun: false, warnings: [],
    registry: reg, canWait: true, ...over,
  };
}

async function rejection(p: Promise<unknown> | void): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  return assert.fail('expected an ApiError');
}

describe('validating webhooks', () => {
  it('stays out of the way when nothing is configured or the write cannot wait', async () => {
    const reg = cluster();
    const plugin = validatingWebhookPlugin();
    assert.equal(plugin.handles!(attrs(reg)), false);
    await configure(reg, 'validating', [hook('allow.example.com', '/allow')]);
    assert.equal(plugin.handles!(attrs(reg)), true);
    assert.equal(plugin.handles!(attrs(reg, { canWait: false })), false);
    assert.equal(plugin.handles!(attrs(reg, { def: reg.find('', 'v1', 'secrets')!, resource: { group: '', version: 'v1', resource: 'secrets' } })), false);
  });

  it('sends an AdmissionReview and lets an allowed request through', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [hook('allow.example.com', '/allow')]);
    const before = seen.length;
    await validatingWebhookPlugin().validate!(attrs(reg));
    const call = seen[before];
    assert.equal(call.path, '/allow?timeout=10s');
    const r = call.review.request;
    assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.equal(r.operation, 'CREATE');
    assert.equal(r.namespace, 'default');
    assert.equal(r.name, 'cm1');
    assert.deepEqual(r.userInfo, { username: 'alice', groups: ['system:authenticated'] });
    assert.equal(r.dryRun, false);
    assert.equal(r.oldObject, null);
    assert.equal((r.object as KObject).metadata.name, 'cm1');
  });

  it('refuses with the webhook message (400 by default, the webhook code when given)', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [hook('deny.example.com', '/deny')]);
    const e = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'admission webhook "deny.example.com" denied the request: nope');
    const reg2 = cluster();
    await configure(reg2, 'validating', [hook('deny.example.com', '/deny403')]);
    const e2 = await rejection(validatingWebhookPlugin().validate!(attrs(reg2)));
    assert.equal(e2.code, 403);
    assert.equal(e2.reason, 'Forbidden');
    assert.equal(e2.message, 'admission webhook "deny.example.com" denied the request: no way');
  });

  it('collects warnings', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [hook('warn.example.com', '/warn')]);
    const a = attrs(reg);
    await validatingWebhookPlugin().validate!(a);
    assert.deepEqual(a.warnings, ['careful now']);
  });

  it('fails closed on a timeout with Fail and open with Ignore, within the timeout', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [hook('slow.example.com', '/slow', { timeoutSeconds: 1 })]);
    const e = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.equal(e.code, 500);
    assert.equal(e.message, `Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/slow?timeout=1s": context deadline exceeded`);
    const reg2 = cluster();
    await configure(reg2, 'validating', [hook('slow.example.com', '/slow', { timeoutSeconds: 1, failurePolicy: 'Ignore' })]);
    await validatingWebhookPlugin().validate!(attrs(reg2));
  });

  it('treats a response for another request as a failure to call', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [hook('baduid.example.com', '/baduid')]);
    const e = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.equal(e.code, 500);
    assert.match(e.message, /^Internal error occurred: failed calling webhook "baduid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]+", got "other"$/);
  });

  it('applies namespace and object selectors', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [
      hook('ns.example.com', '/deny', { namespaceSelector: { matchLabels: { team: 'a' } } }),
      hook('obj.example.com', '/deny403', { objectSelector: { matchExpressions: [{ key: 'checked', operator: 'Exists' }] } }),
    ]);
    await validatingWebhookPlugin().validate!(attrs(reg));
    const e = await rejection(validatingWebhookPlugin().validate!(attrs(reg, {}, { checked: 'true' })));
    assert.equal(e.message, 'admission webhook "obj.example.com" denied the request: no way');
    const nsDef = reg.find('', 'v1', 'namespaces')!;
    await reg.update(nsDef, '', 'default', () => ({ ...reg.get(nsDef, '', 'default'), metadata: { ...reg.get(nsDef, '', 'default').metadata, labels: { team: 'a' } } }));
    const e2 = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.equal(e2.message, 'admission webhook "ns.example.com" denied the request: nope');
  });

  it('refuses dry runs for webhooks with side effects and tells the others it is one', async () => {
    const reg = cluster();
    // A configuration from before side effects were required to be None (stored as is).
    await reg.store.create('admissionregistration.k8s.io/validatingwebhookconfigurations', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'old', uid: 'u1' },
      webhooks: [hook('some.example.com', '/allow', { sideEffects: 'Some' })],
    });
    const e = await rejection(validatingWebhookPlugin().validate!(attrs(reg, { dryRun: true })));
    assert.equal(e.code, 400);
    assert.equal(e.message, 'admission webhook "some.example.com" does not support dry run');
    const reg2 = cluster();
    await configure(reg2, 'validating', [hook('none.example.com', '/allow')]);
    const before = seen.length;
    await validatingWebhookPlugin().validate!(attrs(reg2, { dryRun: true }));
    assert.equal(seen[before].review.request.dryRun, true);
  });

  it('prints the root path of a webhook given without one, as upstream does', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [hook('root-svc.example.com', '', { clientConfig: { service: { namespace: 'default', name: 'nohook' }, caBundle } })]);
    const e = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.equal(e.message, 'Internal error occurred: failed calling webhook "root-svc.example.com": failed to call webhook: Post "https://nohook.default.svc:443/?timeout=10s": service "nohook" not found');
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const free = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const reg2 = cluster();
    await configure(reg2, 'validating', [hook('root-url.example.com', '', { clientConfig: { url: `https://127.0.0.1:${free}`, caBundle } })]);
    const e2 = await rejection(validatingWebhookPlugin().validate!(attrs(reg2)));
    assert.equal(e2.message, `Internal error occurred: failed calling webhook "root-url.example.com": failed to call webhook: Post "https://127.0.0.1:${free}/?timeout=10s": dial tcp 127.0.0.1:${free}: connect: connection refused`);
  });

  it('calls a service through its endpoints, and says why when it cannot', async () => {
    const reg = cluster();
    await configure(reg, 'validating', [hook('svc.example.com', '', { clientConfig: { service: { namespace: 'default', name: 'hook', path: '/deny', port: 443 }, caBundle } })]);
    const e = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.equal(e.message, 'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://hook.default.svc:443/deny?timeout=10s": service "hook" not found');
    await reg.create(reg.find('', 'v1', 'services')!, 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook' }, spec: { ports: [{ name: 'https', port: 443, targetPort: port }] } });
    const e2 = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.match(e2.message, /no endpoints available for service "hook"$/);
    await reg.create(reg.find('discovery.k8s.io', 'v1', 'endpointslices')!, 'default', {
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'hook-1', labels: { 'kubernetes.io/service-name': 'hook' } },
      addressType: 'IPv4', ports: [{ name: 'https', port, protocol: 'TCP' }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    });
    const e3 = await rejection(validatingWebhookPlugin().validate!(attrs(reg)));
    assert.equal(e3.message, 'admission webhook "svc.example.com" denied the request: nope');
  });
});

describe('mutating webhooks', () => {
  it('applies a JSON patch to the object', async () => {
    const reg = cluster();
    await configure(reg, 'mutating', [hook('label.example.com', '/label')]);
    const a = attrs(reg, {}, { app: 'x' });
    await mutatingWebhookPlugin().mutate!(a);
    assert.deepEqual(a.object?.metadata.labels, { app: 'x', mutated: 'yes' });
    assert.equal(a.object?.apiVersion, 'v1');
  });

  it('reinvokes an IfNeeded webhook once when a later one changed the object', async () => {
    const reg = cluster();
    await configure(reg, 'mutating', [hook('a-first.example.com', '/allow', { reinvocationPolicy: 'IfNeeded' }), hook('b-label.example.com', '/label')]);
    const before = seen.length;
    await mutatingWebhookPlugin().mutate!(attrs(reg));
    assert.deepEqual(seen.slice(before).map((s) => s.path.split('?')[0]), ['/allow', '/label', '/allow']);
  });

  it('refuses a patch of a DELETE (there is no object)', async () => {
    const reg = cluster();
    await configure(reg, 'mutating', [hook('label.example.com', '/label', { rules: [{ operations: ['DELETE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] })]);
    const old = attrs(reg).object;
    const e = await rejection(mutatingWebhookPlugin().mutate!(attrs(reg, { operation: 'DELETE', object: undefined, oldObject: old })));
    assert.equal(e.code, 500);
    assert.equal(e.message, 'Internal error occurred: admission webhook "label.example.com" attempted to modify the object, which is not supported for this operation');
  });
});

describe('hostile webhook answers', () => {
  // A patch that cannot be applied fails the request whatever the failurePolicy, as upstream (an internal error, not a
  // failure to call the webhook); the other answers are failures to call it.
  for (const [path, named] of [['/notjson', true], ['/huge', true], ['/protopatch', false], ['/toarray', false], ['/deeppatch', false], ['/badpatch', false], ['/allowedstring', true]] as const) {
    it(`fails the request on ${path} without touching prototypes or the process`, async () => {
      const reg = cluster();
      await configure(reg, 'mutating', [hook('hostile.example.com', path)]);
      const a = attrs(reg);
      const e = await rejection(mutatingWebhookPlugin().mutate!(a));
      assert.ok(e.code >= 400, `code ${e.code}`);
      if (named) assert.match(e.message, /hostile\.example\.com/);
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
      assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
    });
  }

  it('ignores the failures to call under failurePolicy Ignore', async () => {
    const reg = cluster();
    await configure(reg, 'mutating', ['/notjson', '/huge', '/allowedstring'].map((p, i) => hook(`ignored${i}.example.com`, p, { failurePolicy: 'Ignore' })));
    const a = attrs(reg);
    await mutatingWebhookPlugin().mutate!(a);
    assert.deepEqual(a.object?.data, { a: 'b' });
  });
});

describe('webhook configuration validation', () => {
  it('refuses what upstream refuses, with its paths', async () => {
    const reg = cluster();
    let err: ApiError | undefined;
    try {
      await configure(reg, 'validating', [{
        name: 'short', admissionReviewVersions: ['v9'], timeoutSeconds: 31,
        clientConfig: { url: 'http://example.com/x' }, rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: [] }],
      }]);
    } catch (e) {
      err = e as ApiError;
    }
    assert.ok(err);
    assert.equal(err.code, 422);
    const causes = (err.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
    assert.deepEqual(causes, [
      'webhooks[0].name: Invalid value: "short": should be a domain with at least three segments separated by dots',
      'webhooks[0].rules[0].resources: Required value',
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
      'webhooks[0].clientConfig.url: Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v9"]: must include at least one of v1, v1beta1',
    ]);
  });
});
