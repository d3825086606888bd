// A ReplicaSet whose pod creations start failing: slow-start batches stop at the first failure, the ReplicaFailure
// condition and FailedCreate event report it, and the set recovers once creations succeed again. In process, with
// the registry's create (what controllers create pods with) wrapped to refuse pods.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forbidden } from '../../src/machinery/errors.js';
import type { Registry } from '../../src/registry/registry.js';
import { useBonsai } from '../api/http.js';
import { eventually } from '../helpers/kubectl.js';

describe('replicaset creation failures', () => {
  const { env, req } = useBonsai({ controllers: ['replicaset', 'deployment'] });

  it('stops a slow-start round at the first failure and recovers', async () => {
    const reg: Registry = env.b.registry;
    const original = reg.create.bind(reg);
    let allowed = 3;
    reg.create = (def, ns, obj, opts) => {
      if (def.plural === 'pods' && allowed-- <= 0) throw forbidden('pods "quota" is forbidden: exceeded quota: pods');
      return original(def, ns, obj, opts);
    };
    try {
      const rs = {
        apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'batch' },
        spec: { replicas: 10, selector: { matchLabels: { app: 'batch' } }, template: { metadata: { labels: { app: 'batch' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      };
      assert.equal((await req('POST', '/apis/apps/v1/namespaces/default/replicasets', rs)).status, 201);
      const failed = await eventually(async () => {
        const r = (await req('GET', '/apis/apps/v1/namespaces/default/replicasets/batch')).body;
        return r.status?.conditions?.some((c: { type: string }) => c.type === 'ReplicaFailure') && r;
      }, 5_000, 'ReplicaFailure');
      const cond = failed.status.conditions.find((c: { type: string }) => c.type === 'ReplicaFailure');
      assert.deepEqual([cond.status, cond.reason, cond.message], ['True', 'FailedCreate', 'pods "quota" is forbidden: exceeded quota: pods']);
      // Batches of 1 and 2 succeeded; the batch of 4 failed on its first pod and the round stopped there.
      assert.equal(failed.status.replicas, 3);
      const pods = (await req('GET', '/api/v1/namespaces/default/pods')).body.items;
      assert.equal(pods.length, 3);
      const events = (await req('GET', '/api/v1/namespaces/default/events')).body.items as Array<{ reason: string; type: string; message: string }>;
      assert.ok(events.some((e) => e.reason === 'FailedCreate' && e.type === 'Warning' && e.message === 'Error creating: pods "quota" is forbidden: exceeded quota: pods'));
      assert.equal(events.filter((e) => e.reason === 'SuccessfulCreate').length, 3);
    } finally {
      reg.create = original;
    }
    const healed = await eventually(async () => {
      const r = (await req('GET', '/apis/apps/v1/namespaces/default/replicasets/batch')).body;
      return r.status?.replicas === 10 && !r.status.conditions && r;
    }, 10_000, 'recovery to 10 pods');
    assert.equal(healed.status.observedGeneration, 1);
  });

  it("reports the new ReplicaSet's failure as the deployment's ReplicaFailure condition", async () => {
    const reg: Registry = env.b.registry;
    const original = reg.create.bind(reg);
    reg.create = (def, ns, obj, opts) => {
      if (def.plural === 'pods') throw forbidden('pods "quota" is forbidden: exceeded quota: pods');
      return original(def, ns, obj, opts);
    };
    try {
      const d = {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'starved' },
        spec: { replicas: 2, selector: { matchLabels: { app: 'starved' } }, template: { metadata: { labels: { app: 'starved' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      };
      assert.equal((await req('POST', '/apis/apps/v1/namespaces/default/deployments', d)).status, 201);
      const cond = await eventually(async () => {
        const x = (await req('GET', '/apis/apps/v1/namespaces/default/deployments/starved')).body;
        return x.status?.conditions?.find((c: { type: string }) => c.type === 'ReplicaFailure');
      }, 5_000, 'ReplicaFailure on the deployment');
      assert.deepEqual([cond.status, cond.reason, cond.message], ['True', 'FailedCreate', 'pods "quota" is forbidden: exceeded quota: pods']);
    } finally {
      reg.create = original;
    }
    await eventually(async () => {
      const x = (await req('GET', '/apis/apps/v1/namespaces/default/deployments/starved')).body;
      return x.status?.replicas === 2 && !x.status.conditions.some((c: { type: string }) => c.type === 'ReplicaFailure');
    }, 10_000, 'recovery');
  });
});
