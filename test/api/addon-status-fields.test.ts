// What the add-on controllers write fits the schema of the version they write: after their reconciles, no stored
// JobSet, LeaderWorkerSet or Sandbox object (nor any other add-on kind present) has a field its CRD's storage
// version does not declare, which a user's next patch would report as `unknown field`.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai } from '../../src/main.js';
import { clientFor, type Client } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { unknownFields } from '../helpers/addon-fields.js';
import { until } from '../unit/jobset-helpers.js';

type Json = Record<string, any>;

const container = (command: string) => [{ name: 'main', image: 'busybox', command: ['sh', '-c', command] }];

function createObjects(client: Client): void {
  client.create('jobset.x-k8s.io/v1alpha2/jobsets', 'default', {
    apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js', namespace: 'default' },
    spec: { replicatedJobs: [{ name: 'w', replicas: 1, template: { spec: { parallelism: 1, completions: 1, template: { spec: { restartPolicy: 'Never', containers: container('sleep 1') } } } } }] },
  });
  client.create('leaderworkerset.x-k8s.io/v1/leaderworkersets', 'default', {
    apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name: 'lws', namespace: 'default' },
    spec: { replicas: 1, leaderWorkerTemplate: { size: 2, workerTemplate: { spec: { containers: container('sleep 3600') } } } },
  });
  client.create('agents.x-k8s.io/v1beta1/sandboxes', 'default', {
    apiVersion: 'agents.x-k8s.io/v1beta1', kind: 'Sandbox', metadata: { name: 'sb', namespace: 'default' },
    spec: { podTemplate: { spec: { containers: container('sleep 3600') } }, service: true },
  });
}

describe('add-on status writes', () => {
  it('declare only fields of the version the controllers write', async () => {
    const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', clockSpeed: 10, cluster: { nodes: 2 }, addons: ['jobset', 'lws', 'sandbox'] });
    try {
      await b.addonsReady;
      const client = clientFor(b.registry);
      createObjects(client);
      const status = (ref: string, name: string) => client.get<Json>(ref, 'default', name)?.status;
      await until(() => status('jobset.x-k8s.io/v1alpha2/jobsets', 'js')?.terminalState === 'Completed', 30_000, 'the JobSet completed');
      await until(() => status('leaderworkerset.x-k8s.io/v1/leaderworkersets', 'lws')?.readyReplicas === 1, 30_000, 'the LWS ready');
      await until(() => (status('agents.x-k8s.io/v1beta1/sandboxes', 'sb')?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True'), 30_000, 'the Sandbox ready');
      assert.deepEqual(unknownFields(client), []);
    } finally {
      await b.close();
    }
  });
});
