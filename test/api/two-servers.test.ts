// Two servers in one process keep apart: a CRD created in one appears in its own discovery and OpenAPI documents
// only; each reads its own pods' logs, calls its own webhooks and evaluates its own policies' CEL within each call's
// own cost budget; and startBonsai checks its options (a list may be a comma-separated string, a wrong type is named).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai, type Bonsai, type BonsaiOptions } from '../../src/main.js';
import { client, openWatch } from './http.js';
import { waitDeadline } from '../helpers/wait.js';
import { startHttpsTestServer } from '../helpers/https-test-server.js';
import { runtimeFor } from '../../src/api/streaming/runtime.js';
import type { SimRuntime } from '../../src/exec/runtime.js';
import { defaultBudget } from '../../src/exec/shell/budget.js';

type Json = Record<string, any>;

const base: BonsaiOptions = { port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [], controllers: [] };
/** With a node each (and the default controllers), so that pods run and print. */
const withNode: BonsaiOptions = { port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 1 }, addons: [] };
const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gizmos.apart.example.com' },
  spec: {
    group: 'apart.example.com', scope: 'Namespaced', names: { kind: 'Gizmo', plural: 'gizmos', singular: 'gizmo', listKind: 'GizmoList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
  },
};

async function until(what: string, f: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + waitDeadline(10_000);
  while (!(await f())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('two servers in one process', () => {
  it('publish a CRD in the one it was created in only', async () => {
    const servers: Bonsai[] = [];
    try {
      servers.push(await startBonsai(base), await startBonsai(base));
      const [a, b] = servers.map((s) => client(() => s.url, () => s.credentials.token));
      const created = await a('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
      assert.equal(created.status, 201, created.text);
      await until('the CRD in the first server\'s /openapi/v3', async () => !!(await a('GET', '/openapi/v3')).body.paths['apis/apart.example.com/v1']);
      assert.ok((await a('GET', '/openapi/v2')).body.definitions['com.example.apart.v1.Gizmo']);
      assert.equal((await a('GET', '/apis/apart.example.com')).status, 200);

      const v3 = (await b('GET', '/openapi/v3')).body as Json;
      assert.equal(v3.paths['apis/apart.example.com/v1'], undefined);
      assert.equal((await b('GET', '/openapi/v3/apis/apart.example.com/v1')).status, 404);
      const v2 = (await b('GET', '/openapi/v2')).body as Json;
      assert.deepEqual(Object.keys(v2.definitions).filter((k) => k.includes('apart')), []);
      assert.deepEqual(Object.keys(v2.paths).filter((k) => k.includes('apart')), []);
      assert.equal((await b('GET', '/apis/apart.example.com')).status, 404);
      const groups = (await b('GET', '/apis')).body as Json;
      assert.ok(!groups.groups.some((g: Json) => g.name === 'apart.example.com'));
      const aggregated = (await b('GET', '/apis', undefined, { accept: AGGREGATED })).body as Json;
      assert.ok(!aggregated.items.some((g: Json) => g.metadata.name === 'apart.example.com'));

      // Closing the first server ends its own watches only.
      const watch = await openWatch(`${servers[1].url}/api/v1/namespaces/default/configmaps?watch=true`, { authorization: `Bearer ${servers[1].credentials.token}` });
      try {
        await servers[0].close();
        assert.equal((await b('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'still' } })).status, 201);
        await watch.waitFor((evs) => evs.some((e) => e.object.metadata?.name === 'still'), waitDeadline(10_000), 'the event on the second server');
        assert.equal(watch.isEnded(), false);
      } finally {
        watch.close();
      }
    } finally {
      for (const s of servers) await s.close();
    }
  });

  it('each read their own pods\' logs, call their own webhooks, meter their own CEL and bound their own exec sessions', async () => {
    let calls = 0;
    const hook = await startHttpsTestServer('apart-webhook', (_url, review: Json, res) => {
      calls++;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: false, status: { message: 'webhook of the first server' } } }));
    });
    const servers: Bonsai[] = [];
    try {
      servers.push(await startBonsai({ ...withNode, execBudget: { cpuMs: 1_500 } }), await startBonsai(withNode));
      const [a, b] = servers.map((s) => client(() => s.url, () => s.credentials.token));
      // Each server's exec sessions have its own limits: a budget given to the first leaves the second's default.
      const budgets = await Promise.all(servers.map(async (s) => ((await runtimeFor(s.registry)) as SimRuntime).budget.cpuMs));
      assert.deepEqual(budgets, [1_500, defaultBudget.cpuMs]);

      // A pod of the same name in each, printing its own line: each server's log comes from its own kubelet.
      const PODS = '/api/v1/namespaces/default/pods';
      for (const [req, says] of [[a, 'said-in-a'], [b, 'said-in-b']] as const) {
        const made = await req('POST', PODS, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'talker' }, spec: { containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', `echo ${says}; sleep 3600`] }] } });
        assert.equal(made.status, 201, made.text);
      }
      for (const [req, says] of [[a, 'said-in-a'], [b, 'said-in-b']] as const) {
        await until(`the pod's line in its own server's log (${says})`, async () => (await req('GET', `${PODS}/talker/log`)).text === `${says}\n`);
      }

      // A webhook refusing labelled ConfigMaps in the first server: the second server never calls it.
      const webhooks = await a('POST', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations', {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'apart' },
        webhooks: [{
          name: 'apart.example.com', clientConfig: { url: `${hook.base}/validate`, caBundle: hook.caBundle },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          objectSelector: { matchLabels: { hooked: 'yes' } }, failurePolicy: 'Fail', sideEffects: 'None', admissionReviewVersions: ['v1'],
        }],
      });
      assert.equal(webhooks.status, 201, webhooks.text);
      const cm = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
      const CMS = '/api/v1/namespaces/default/configmaps';
      let probe = 0;
      await until('the webhook to refuse creates in the first server', async () => {
        const r = await a('POST', CMS, cm(`probe-${probe++}`, {}, { hooked: 'yes' }));
        return r.status !== 201 && /webhook of the first server/.test(r.text);
      });
      const callsInA = calls;
      assert.ok(callsInA > 0);
      const plain = await b('POST', CMS, cm('plain', {}, { hooked: 'yes' }));
      assert.equal(plain.status, 201, plain.text);
      assert.equal(calls, callsInA, 'the second server called the first server\'s webhook');
      assert.equal((await b('GET', '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations')).body.items.length, 0);

      // A policy whose check costs the square of a list's length: in the first server a ConfigMap listing 2,000
      // items runs out of the per-call CEL cost budget. The second server has no such policy, and once given it,
      // its calls have their whole budget: 200 items pass, a forbidden pair is refused by the expression itself.
      const policy = {
        apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name: 'pairs' },
        spec: {
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] },
          variables: [{ name: 'items', expression: "has(object.data) && 'items' in object.data ? object.data['items'].split(',') : []" }],
          validations: [{ expression: "variables.items.all(x, variables.items.all(y, x != 'forbidden' || y != 'forbidden'))", message: 'a forbidden pair' }],
        },
      };
      const binding = { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'pairs' }, spec: { policyName: 'pairs', validationActions: ['Deny'] } };
      const items = (n: number) => ({ items: Array.from({ length: n }, (_, i) => `i${i}`).join(',') });
      const VAPS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
      const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
      assert.equal((await a('POST', VAPS, policy)).status, 201);
      assert.equal((await a('POST', BINDINGS, binding)).status, 201);
      await until('the policy in force in the first server', async () => (await a('POST', CMS, cm(`forbidden-${probe++}`, { items: 'forbidden' }))).status === 422);
      const over = await a('POST', CMS, cm('over', items(2_000)));
      assert.equal(over.status, 422, over.text);
      assert.match(over.text, /cost limit exceeded/);

      assert.equal((await b('GET', VAPS)).body.items.length, 0);
      assert.equal((await b('POST', CMS, cm('over', items(2_000)))).status, 201);
      assert.equal((await b('POST', VAPS, policy)).status, 201);
      assert.equal((await b('POST', BINDINGS, binding)).status, 201);
      await until('the policy in force in the second server', async () => (await b('POST', CMS, cm(`forbidden-${probe++}`, { items: 'forbidden' }))).status === 422);
      const within = await b('POST', CMS, cm('within', items(200)));
      assert.equal(within.status, 201, within.text);
      const refused = await b('POST', CMS, cm('pair', { items: `${items(200).items},forbidden` }));
      assert.equal(refused.status, 422, refused.text);
      assert.match(refused.text, /denied request: a forbidden pair/);
      assert.equal(calls, callsInA, 'the second server called the first server\'s webhook');
    } finally {
      for (const s of servers) await s.close();
      await hook.close();
    }
  });

  it('takes a list option as a comma-separated string, and names an option of the wrong type', async () => {
    const b = await startBonsai({ ...base, addons: '', controllers: 'namespace,-namespace' } as unknown as BonsaiOptions);
    try {
      assert.equal((await client(() => b.url, () => b.credentials.token)('GET', '/version')).status, 200);
    } finally {
      await b.close();
    }
    const wrong = (opts: Record<string, unknown>) => startBonsai({ ...base, ...opts });
    await assert.rejects(wrong({ addons: 5 }), { name: 'TypeError', message: 'startBonsai: addons must be a list of strings or a comma-separated string, not number' });
    await assert.rejects(wrong({ tlsSans: ['a', 7] }), { name: 'TypeError', message: 'startBonsai: tlsSans[1] must be a string, not number' });
    await assert.rejects(wrong({ port: '8080' }), { name: 'TypeError', message: 'startBonsai: port must be a number, not string' });
    await assert.rejects(wrong({ cluster: [] }), { name: 'TypeError', message: 'startBonsai: cluster must be an object, not an array' });
    await assert.rejects(wrong({ adons: ['keda'] }), { name: 'TypeError', message: 'startBonsai: unknown option "adons"' });
    await assert.rejects(startBonsai('x' as BonsaiOptions), { name: 'TypeError', message: 'startBonsai: the options must be an object, not string' });
  });
});
