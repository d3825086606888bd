// Two servers in one process keep apart: a CRD created in one appears in its own discovery and OpenAPI documents
// only; and startBonsai checks its options (a list may be a comma-separated string, a wrong type is named).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai, type Bonsai, type BonsaiOptions } from '../../src/main.js';
import { client, openWatch } from './http.js';
import { waitDeadline } from '../helpers/wait.js';

type Json = Record<string, any>;

const base: BonsaiOptions = { port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: [], controllers: [] };
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

  it('takes a list option as a comma-separated string, and names an option of the wrong type', async () => {
    const b = await startBonsai({ ...base, addons: '', controllers: 'namespace,-namespace' } as unknown as BonsaiOptions);
    try {
      assert.equal((await client(() => b.url, () => b.credentials.token)('GET', '/version')).status, 200);
    } finally {
      await b.close();
    }
    const wrong = (opts: Record<string, unknown>) => startBonsai({ ...base, ...opts } as unknown as BonsaiOptions);
    await assert.rejects(wrong({ addons: 5 }), { name: 'TypeError', message: 'startBonsai: addons must be a list of strings or a comma-separated string, not number' });
    await assert.rejects(wrong({ tlsSans: ['a', 7] }), { name: 'TypeError', message: 'startBonsai: tlsSans[1] must be a string, not number' });
    await assert.rejects(wrong({ port: '8080' }), { name: 'TypeError', message: 'startBonsai: port must be a number, not string' });
    await assert.rejects(wrong({ cluster: [] }), { name: 'TypeError', message: 'startBonsai: cluster must be an object, not an array' });
    await assert.rejects(wrong({ adons: ['keda'] }), { name: 'TypeError', message: 'startBonsai: unknown option "adons"' });
    await assert.rejects(startBonsai('x' as unknown as BonsaiOptions), { name: 'TypeError', message: 'startBonsai: the options must be an object, not string' });
  });
});
