// Hostile input (issue 9): several hundred generated requests (tables in test/helpers/hostile-*.ts) against an
// in-process Bonsai. Each gets kube-apiserver's status, every error is a metav1.Status carrying that code, no
// request makes a 5xx, crashes the process, prints a warning or touches a prototype, and deletions still
// complete afterwards. Raw HTTP, so paths such as `/..` reach the server as sent.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { etcdTestMode, useBonsai } from './http.js';
import { CMS, DEPLOYS, NS, PODS, depthCases, nameCases, queryCases, readBackCases, uniq, yamlCases, type HostileCase } from '../helpers/hostile-cases.js';
import { deployment, deploymentTypeSweep, patchCases, podNullSweep, resourceNameCases, richPod, subresourceCases } from '../helpers/hostile-sweeps.js';
import { configMap, protobufCases } from '../helpers/hostile-protobuf.js';
import { largeBodyCases } from '../helpers/hostile-bodies.js';
import { validationGapCases } from '../helpers/hostile-validation.js';
import { credentialHeaderCases, securityBodyCases } from '../helpers/hostile-security.js';
import { admissionConfigCases } from '../helpers/hostile-admission.js';
import { metricsAdapterCases } from '../helpers/hostile-metrics.js';
import { dashboardApiCases } from '../helpers/hostile-dashapi.js';
import { clockCases } from '../helpers/hostile-clock.js';
import { patchSizeCases } from '../helpers/hostile-patch-size.js';
import { originCases } from '../helpers/hostile-origin.js';
import { flowcontrolApiCases } from '../helpers/hostile-flowcontrol-api.js';
import { flowControlCases } from '../helpers/hostile-flowcontrol.js';
import { draApiCases } from '../helpers/hostile-dra-api.js';
import { THINGS, XGROUP, crdSchemaCases, crdUpdateCases, customObjectCases, customPatchCases, customScaleCases, extensionFixtures, extensionServed } from '../helpers/hostile-extensions.js';
import { waitDeadline } from '../helpers/wait.js';

interface Answer {
  status: number;
  contentType: string;
  text: string;
}

/** A request with no answer in this long hung: generous, so that a loaded machine never trips it. */
const hangMs = 120_000;

function send(base: string, c: Pick<HostileCase, 'method' | 'path' | 'headers' | 'body'>): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...(c.headers ?? {}) };
    if (c.body !== undefined) headers['content-length'] = Buffer.byteLength(c.body);
    const r = http.request({ host: url.hostname, port: url.port, method: c.method, path: c.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    r.on('error', reject);
    r.setTimeout(hangMs, () => r.destroy(new Error(`no answer within ${hangMs / 1000} s`)));
    r.end(c.body);
  });
}

/** What is wrong with the answer to `c`, or undefined. */
async function check(base: string, c: HostileCase): Promise<string | undefined> {
  let expected = c.expectCode ?? 0;
  if (c.sameAs) {
    const twin = await send(base, c.sameAs);
    if (twin.status >= 500) return `${c.name}: its twin got ${twin.status}: ${twin.text.slice(0, 300)}`;
    expected = twin.status;
  }
  let a: Answer;
  try {
    a = await send(base, c);
  } catch (e) {
    return `${c.name}: ${e instanceof Error ? e.message : String(e)}`;
  }
  const said = `${a.status} ${a.text.slice(0, 300)}`;
  // Only a 500 upstream documents (the scale of a custom object without spec replicas) is expected.
  if (a.status >= 500 && a.status !== expected) return `${c.name}: server error ${said}`;
  if (a.status !== expected) return `${c.name}: expected ${expected}, got ${said}`;
  if (a.status < 400) return undefined;
  if (!/^application\/json/.test(a.contentType)) return `${c.name}: error answer is ${a.contentType}, not a Status`;
  let s: { kind?: string; apiVersion?: string; status?: string; code?: number; reason?: string; message?: string };
  try {
    s = JSON.parse(a.text) as typeof s;
  } catch {
    return `${c.name}: error answer is not JSON: ${said}`;
  }
  if (s.kind !== 'Status' || s.apiVersion !== 'v1' || s.status !== 'Failure' || s.code !== a.status) return `${c.name}: not a Failure Status with code ${a.status}: ${said}`;
  if (c.expectReason && s.reason !== c.expectReason) return `${c.name}: reason ${s.reason}, expected ${c.expectReason}`;
  if (c.expectMessage && !c.expectMessage.test(s.message ?? '')) return `${c.name}: message ${JSON.stringify(s.message)} does not match ${c.expectMessage}`;
  return undefined;
}

/** Own property names of the built-in prototypes a pollution would reach. */
function prototypeSnapshot(): string {
  const protos = [Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype, Boolean.prototype];
  return JSON.stringify(protos.map((p) => Reflect.ownKeys(p).map(String).sort()));
}

const polluted = () => {
  const o = {} as Record<string, unknown>;
  return ['finalizers', 'deletionTimestamp', 'x', 'image', 'a', 'pwned', 'labels'].filter((k) => o[k] !== undefined);
};

async function waitGone(base: string, path: string, ms = 15_000): Promise<void> {
  const end = Date.now() + waitDeadline(ms);
  for (;;) {
    const r = await send(base, { method: 'GET', path });
    if (r.status === 404) return;
    if (Date.now() > end) assert.fail(`${path} still there: ${r.text.slice(0, 300)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function waitServed(base: string, path: string, ms = 10_000): Promise<void> {
  const end = Date.now() + waitDeadline(ms);
  for (;;) {
    const r = await send(base, { method: 'GET', path });
    if (r.status === 200) return;
    if (Date.now() > end) assert.fail(`${path} not served: ${r.status} ${r.text.slice(0, 300)}`);
    await new Promise((res) => setTimeout(res, 20));
  }
}

describe('hostile input', () => {
  const { env } = useBonsai();
  const base = () => env.b.url;
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  let prototypesBefore = '';
  const json = { 'content-type': 'application/json' };

  before(async () => {
    process.on('warning', onWarning);
    prototypesBefore = prototypeSnapshot();
    const fixtures: [string, unknown][] = [
      ['/api/v1/namespaces', { metadata: { name: NS } }],
      [CMS, { metadata: { name: 'target', finalizers: ['example.com/keep'] }, data: { a: 'b' } }],
      [DEPLOYS, deployment('web')],
      [PODS, { ...richPod('pod1'), metadata: { name: 'pod1' } }],
    ];
    for (const [path, body] of fixtures) {
      const r = await send(base(), { method: 'POST', path, headers: json, body: JSON.stringify(body) });
      assert.equal(r.status, 201, `fixture ${path}: ${r.text.slice(0, 300)}`);
    }
    // Custom resources: the CRDs, then (once they are served) the objects the cases address.
    for (const [path, body] of extensionFixtures()) {
      const r = await send(base(), { method: 'POST', path, headers: json, body });
      assert.equal(r.status, 201, `fixture ${path}: ${r.text.slice(0, 300)}`);
    }
    for (const path of extensionServed) await waitServed(base(), path);
    for (const [name, spec] of [['target', { replicas: 1 }], ['noreplicas', {}]] as const) {
      const r = await send(base(), { method: 'POST', path: THINGS, headers: json, body: JSON.stringify({ apiVersion: `${XGROUP}/v1`, kind: 'Thing', metadata: { name }, spec }) });
      assert.equal(r.status, 201, `fixture ${name}: ${r.text.slice(0, 300)}`);
    }
  });
  after(() => {
    process.off('warning', onWarning);
  });

  const groups: [string, () => HostileCase[]][] = [
    ['nesting in every decoder and patch engine', depthCases],
    ['YAML documents that are not plain data', yamlCases],
    ['names and namespaces in paths and bodies', nameCases],
    ['selectors and query parameters', queryCases],
    ['[null] in every list of a pod', podNullSweep],
    ['wrong types and nulls at every position of a Deployment', deploymentTypeSweep],
    ['patches and patch options', patchCases],
    ['patches that grow objects: copies and long lists', patchSizeCases],
    ['protobuf bodies', protobufCases],
    ['bodies at the size limit (event-loop stalls)', largeBodyCases],
    ['subresources and collections', subresourceCases],
    ['container resource names', resourceNameCases],
    ['validation with upstream messages', validationGapCases],
    ['security and registration bodies', securityBodyCases],
    ['credentials and impersonation headers', credentialHeaderCases],
    ['reading back what was stored', readBackCases],
    ['CRDs with hostile schemas', crdSchemaCases],
    ['custom objects sent to such CRDs', customObjectCases],
    ['patches of custom objects', customPatchCases],
    ['scale subresource bodies of custom objects', customScaleCases],
    ['CRD updates: scope, group, names, storage versions', crdUpdateCases],
    ['admission policies, bindings and webhook configurations', admissionConfigCases],
    ['custom and external metrics APIs', metricsAdapterCases],
    ['dashboard scheduling explanations and time travel', dashboardApiCases],
    ['the clock endpoint', clockCases],
    ['cross-origin requests from web pages', originCases],
    ['FlowSchemas and PriorityLevelConfigurations', flowcontrolApiCases],
    ['API Priority and Fairness: timeouts and the debug dumps', flowControlCases],
    ['Dynamic Resource Allocation: claims, templates, slices and classes', draApiCases],
  ];
  let total = 0;
  for (const [title, make] of groups) {
    it(title, async () => {
      // Time travel reads SQLite's change log; on etcd its routes answer 404 (the etcd test mode skips those rows).
      const cases = make().filter((c) => !(etcdTestMode && c.path.startsWith('/bonsai/v1/history')));
      total += cases.length;
      const problems: string[] = [];
      for (const c of cases) {
        const p = await check(base(), c);
        if (p) problems.push(p);
      }
      assert.deepEqual(problems, [], `${problems.length} of ${cases.length} cases`);
    });
  }

  it('sends keys named __proto__, constructor and prototype through every write path', async () => {
    const b = base();
    const evil = '"__proto__":{"finalizers":["example.com/pwned"],"x":1},"constructor":{"prototype":{"finalizers":["example.com/pwned"]}},"prototype":{"x":1}';
    const cmBody = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap",${evil},"metadata":{"name":"${name}",${evil},"labels":{"constructor":"v"}},`
      + '"data":{"__proto__":"v","constructor":"v","prototype":"v","k":"v"}}';
    const name = uniq('proto');
    const writes: HostileCase[] = [
      { name: 'create', method: 'POST', path: CMS, headers: json, body: cmBody(name), expectCode: 201 },
      { name: 'update', method: 'PUT', path: `${CMS}/${name}`, headers: json, body: cmBody(name), expectCode: 200 },
      { name: 'merge', method: 'PATCH', path: `${CMS}/${name}`, headers: { 'content-type': 'application/merge-patch+json' }, body: `{${evil},"metadata":{${evil}}}`, expectCode: 200 },
      { name: 'strategic', method: 'PATCH', path: `${CMS}/${name}`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: `{${evil},"metadata":{${evil}}}`, expectCode: 200 },
      { name: 'json patch', method: 'PATCH', path: `${CMS}/${name}`, headers: { 'content-type': 'application/json-patch+json' }, body: '[{"op":"add","path":"/metadata/__proto__","value":{"finalizers":["example.com/pwned"]}},{"op":"add","path":"/data/constructor","value":"w"},{"op":"add","path":"/prototype","value":{"x":1}}]', expectCode: 200 },
      // Undeclared fields (named like prototype keys or not) fail server-side apply; map keys are data.
      { name: 'apply', method: 'PATCH', path: `${CMS}/${name}?fieldManager=evil`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: cmBody(name), expectCode: 400 },
      { name: 'apply map keys', method: 'PATCH', path: `${CMS}/${name}?fieldManager=evil3&force=true`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","labels":{"constructor":"v"}},"data":{"__proto__":"v","constructor":"v","prototype":"v"}}`, expectCode: 200 },
      { name: 'apply yaml', method: 'PATCH', path: `${CMS}/${name}?fieldManager=evil2&force=true`, headers: { 'content-type': 'application/apply-patch+yaml' }, body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  __proto__: {finalizers: [example.com/pwned]}\n__proto__: {finalizers: [example.com/pwned]}\ndata:\n  __proto__: y\n`, expectCode: 400 },
      { name: 'yaml create', method: 'POST', path: CMS, headers: { 'content-type': 'application/yaml' }, body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${uniq('proto')}\n  __proto__: {finalizers: [x]}\n__proto__: {finalizers: [x]}\nconstructor: {prototype: {finalizers: [x]}}\ndata:\n  __proto__: y\n`, expectCode: 201 },
      { name: 'protobuf create', method: 'POST', path: CMS, headers: { 'content-type': 'application/vnd.kubernetes.protobuf' }, body: configMap(uniq('proto'), { ['__proto__']: 'p', constructor: 'c', prototype: 'q' }), expectCode: 201 },
      { name: 'status update', method: 'PUT', path: `${PODS}/pod1/status`, headers: json, body: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pod1",${evil}},${evil},"status":{${evil},"phase":"Pending"}}`, expectCode: 200 },
      { name: 'status merge patch', method: 'PATCH', path: `${PODS}/pod1/status`, headers: { 'content-type': 'application/merge-patch+json' }, body: `{${evil},"status":{${evil}}}`, expectCode: 200 },
      { name: 'status strategic patch', method: 'PATCH', path: `${PODS}/pod1/status`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: `{"status":{${evil},"conditions":[{"type":"X","status":"True",${evil}}]}}`, expectCode: 200 },
      { name: 'deployment strategic patch', method: 'PATCH', path: `${DEPLOYS}/web`, headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: `{"spec":{${evil},"template":{"spec":{"containers":[{"name":"c",${evil}}]}}}}`, expectCode: 200 },
      { name: 'label selector', method: 'GET', path: `${CMS}?labelSelector=constructor`, expectCode: 200 },
      { name: 'field selector', method: 'GET', path: `${CMS}?fieldSelector=__proto__%3Dx`, expectCode: 400 },
    ];
    const problems: string[] = [];
    for (const c of writes) {
      const p = await check(b, c);
      if (p) problems.push(p);
      assert.deepEqual(polluted(), [], `after ${c.name}`);
    }
    assert.deepEqual(problems, []);
    // Keys named like Object members are ordinary keys: stored and served as written.
    const got = await send(b, { method: 'GET', path: `${CMS}/${name}` });
    const cm = JSON.parse(got.text) as { data: Record<string, unknown>; metadata: Record<string, unknown> };
    assert.equal(Object.getPrototypeOf(cm.data), Object.prototype);
    assert.equal(Object.prototype.hasOwnProperty.call(cm.data, '__proto__'), true, got.text);
    assert.equal(Object.prototype.hasOwnProperty.call(cm.data, 'constructor'), true, got.text);
    assert.equal(cm.metadata.finalizers, undefined, 'no finalizer came in through a prototype');
    const list = await send(b, { method: 'GET', path: `${CMS}?labelSelector=constructor%3Dv` });
    assert.match(list.text, new RegExp(`"name":"${name}"`), 'the label constructor=v selects the object that has it');
  });

  it('names the manager of a write from a hostile User-Agent within bounds, and keeps hostile managedFields out', async () => {
    const b = base();
    const name = uniq('agent');
    const agent = `__proto__ constructor ${'é'.repeat(40)}${'x'.repeat(8_000)}/v1`;
    const created = await send(b, { method: 'POST', path: CMS, headers: { ...json, 'user-agent': agent }, body: JSON.stringify({ metadata: { name }, data: { a: '1' } }) });
    assert.equal(created.status, 201, created.text.slice(0, 300));
    const entries = (JSON.parse(created.text) as { metadata: { managedFields: { manager: string }[] } }).metadata.managedFields;
    assert.equal(entries.length, 1);
    assert.ok(Buffer.byteLength(entries[0].manager) <= 128, entries[0].manager);
    assert.ok(entries[0].manager.startsWith('__proto__ constructor '));
    // managedFields a client sends that do not decode are replaced by the live ones; `[]` clears them.
    const bad = [{ manager: 'x', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { __proto__: { 'f:x': {} }, 'f:data': { 'k:not json': {} } } }];
    const put = await send(b, { method: 'PATCH', path: `${CMS}/${name}`, headers: { 'content-type': 'application/merge-patch+json', 'user-agent': agent }, body: JSON.stringify({ metadata: { managedFields: bad }, data: { a: '2' } }) });
    assert.equal(put.status, 200, put.text.slice(0, 300));
    const after = (JSON.parse(put.text) as { metadata: { managedFields: { manager: string }[] } }).metadata.managedFields;
    assert.deepEqual(after.map((e) => e.manager), [entries[0].manager]);
    assert.deepEqual(polluted(), []);
  });

  it('leaves the process answering, its prototypes untouched, no warnings printed, and deletions completing', async () => {
    assert.ok(total >= 500, `only ${total} generated cases`);
    const b = base();
    const health = await send(b, { method: 'GET', path: '/healthz' });
    assert.equal(health.status, 200);
    assert.equal(prototypeSnapshot(), prototypesBefore);
    assert.deepEqual(polluted(), []);
    assert.deepEqual(warnings, []);
    const name = uniq('gone');
    assert.equal((await send(b, { method: 'POST', path: CMS, headers: json, body: JSON.stringify({ metadata: { name } }) })).status, 201);
    assert.equal((await send(b, { method: 'DELETE', path: `${CMS}/${name}` })).status, 200);
    await waitGone(b, `${CMS}/${name}`);
    const ns = uniq('ns');
    assert.equal((await send(b, { method: 'POST', path: '/api/v1/namespaces', headers: json, body: JSON.stringify({ metadata: { name: ns } }) })).status, 201);
    assert.equal((await send(b, { method: 'POST', path: `/api/v1/namespaces/${ns}/configmaps`, headers: json, body: JSON.stringify({ metadata: { name: 'c' } }) })).status, 201);
    assert.equal((await send(b, { method: 'DELETE', path: `/api/v1/namespaces/${ns}` })).status, 200);
    await waitGone(b, `/api/v1/namespaces/${ns}`);
  });
});
