// Karpenter (karpenter.sh/v1 NodePool/NodeClaim, karpenter.kwok.sh KWOKNodeClass) with real kubectl on a cluster
// without static nodes (a cluster file with no node pools, as --nodes 0), the clock at 10x: a Deployment of 10 one-CPU pods gets NodeClaims whose nodes join and run
// them; a 4-GPU pod gets a GPU instance type; a NodePool at its cpu limit stops provisioning with an event saying
// so; deleting a NodeClaim drains and removes its node.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;

const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-karp-')), 'cluster.yaml');
writeFileSync(clusterFile, 'nodePools: []\naddons:\n  karpenter:\n    launchSeconds: 2\n    startupTaintSeconds: 2\n');

const nodeClass = { apiVersion: 'karpenter.kwok.sh/v1alpha1', kind: 'KWOKNodeClass', metadata: { name: 'default' } };
const nodePool = (name: string, spec: Json = {}, template: Json = {}) => ({
  apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name },
  spec: {
    template: { ...template, spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }], ...template.spec } },
    ...spec,
  },
});
const deployment = (name: string, replicas: number, requests: Json, podSpec: Json = {}) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: {
    replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'nginx', resources: { requests, limits: requests['nvidia.com/gpu'] ? { 'nvidia.com/gpu': requests['nvidia.com/gpu'] } : undefined } }], ...podSpec } },
  },
});

describe('Karpenter add-on', () => {
  const env = useKubectlServer({ args: ['--addons', 'karpenter', '--clock-speed', '10', '--cluster', clusterFile] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const apply = (obj: Json) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  const cond = (o: Json, type: string) => (o.status?.conditions ?? []).find((c: Json) => c.type === type);
  const running = async (app: string) => (await getJson('pods', '-l', `app=${app}`)).items.filter((p: Json) => p.status?.phase === 'Running');

  it('a Deployment of 10 one-CPU pods gets NodeClaims, nodes join and all pods run', async () => {
    await eventually(async () => (await env.k.run(['get', 'nodepools,nodeclaims,kwoknodeclasses'])).code === 0, 20_000, 'the Karpenter CRDs installed');
    await apply(nodeClass);
    // Consolidation is off here (its own tests are in karpenter-disruption): the nodes stay as provisioned.
    await apply(nodePool('default', { disruption: { consolidateAfter: 'Never' } }, { metadata: { labels: { team: 'web' } }, spec: { startupTaints: [{ key: 'example.com/agent-not-ready', effect: 'NoExecute' }] } }));
    await apply(deployment('web', 10, { cpu: '1', memory: '512Mi' }));
    await eventually(async () => (await running('web')).length === 10, 40_000, '10 web pods Running');
    const claims = (await getJson('nodeclaims')).items as Json[];
    assert.ok(claims.length >= 1);
    for (const c of claims) {
      assert.equal(cond(c, 'Ready')?.status, 'True', c.metadata.name);
      assert.equal(c.status.providerID, `kwok://${c.metadata.name}`);
      assert.equal(c.metadata.labels['karpenter.sh/nodepool'], 'default');
      assert.match(c.metadata.name, /^default-[a-z0-9]{5}$/);
      const node = await getJson('node', c.status.nodeName);
      assert.equal(node.metadata.labels['karpenter.sh/registered'], 'true');
      assert.equal(node.metadata.labels['karpenter.sh/initialized'], 'true');
      assert.equal(node.metadata.labels.team, 'web');
      assert.ok(!(node.spec.taints ?? []).some((t: Json) => t.key === 'karpenter.sh/unregistered' || t.key === 'example.com/agent-not-ready'));
      assert.ok(node.metadata.finalizers.includes('karpenter.sh/termination'));
    }
    const table = await env.k.ok(['get', 'nodeclaims']);
    assert.match(table.split('\n')[0]!, /^NAME\s+TYPE\s+CAPACITY\s+ZONE\s+NODE\s+READY\s+AGE$/);
    assert.match(table, /default-\w{5}\s+\S+-linux\s+(spot|on-demand)\s+zone-[abc]\s+default-\w{5}\s+True/);
    const events = await env.k.ok(['get', 'events', '--field-selector', 'reason=Nominated', '-o', 'jsonpath={.items[*].message}']);
    assert.match(events, /Pod should schedule on: nodeclaim\/default-\w{5}/);
    const pools = await env.k.ok(['get', 'nodepools']);
    assert.match(pools.split('\n')[0]!, /^NAME\s+NODECLASS\s+NODES\s+READY\s+AGE$/);
    assert.match(pools, /default\s+default\s+\d+\s+True/);
  });

  it('a pod requesting 4 nvidia.com/gpu gets a GPU instance type', async () => {
    await apply(deployment('trainer', 1, { cpu: '2', 'nvidia.com/gpu': '4' }));
    await eventually(async () => (await running('trainer')).length === 1, 30_000, 'the GPU pod Running');
    const [pod] = await running('trainer');
    const node = await getJson('node', pod.spec.nodeName);
    assert.match(node.metadata.labels['node.kubernetes.io/instance-type'], /gpu/);
    assert.ok(Number(node.status.allocatable['nvidia.com/gpu']) >= 4);
  });

  it('a NodePool at its cpu limit stops provisioning with an event saying so', async () => {
    await apply(nodePool('capped', { limits: { cpu: '4' }, weight: 10 }, { spec: { taints: [{ key: 'capped', value: 'true', effect: 'NoSchedule' }] } }));
    await apply(deployment('batch', 3, { cpu: '1500m' }, { tolerations: [{ key: 'capped', operator: 'Exists' }], nodeSelector: { 'karpenter.sh/nodepool': 'capped' } }));
    const msg = await eventually(async () => {
      const out = await env.k.ok(['get', 'events', '--field-selector', 'reason=FailedScheduling', '-o', 'jsonpath={range .items[*]}{.source.component}|{.message}{"\\n"}{end}']);
      return out.split('\n').find((l) => l.startsWith('karpenter|') && l.includes('exceed limits'));
    }, 30_000, 'a FailedScheduling event from karpenter about limits');
    // Every NodePool's reason, joined as upstream's multierr does: the capped one first (higher weight).
    assert.match(msg, /^karpenter\|Failed to schedule pod, all available instance types exceed limits for nodepool \(NodePool=capped\); incompatible with nodepool "default"/);
    const capped = ((await getJson('nodeclaims')).items as Json[]).filter((c) => c.metadata.labels['karpenter.sh/nodepool'] === 'capped');
    assert.equal(capped.length, 1);
    const pool = await getJson('nodepool', 'capped');
    await eventually(async () => Number((await getJson('nodepool', 'capped')).status?.resources?.cpu ?? 0) > 0, 10_000, 'capped pool resources');
    assert.ok(pool.spec.limits.cpu === '4');
  });

  it('deleting a NodeClaim drains and removes its node', async () => {
    // A claim of the default pool whose node runs web pods.
    const { victim, nodeName } = await eventually(async () => {
      const claims = ((await getJson('nodeclaims')).items as Json[]).filter((c) => c.metadata.labels['karpenter.sh/nodepool'] === 'default' && !c.metadata.deletionTimestamp);
      const web = (await running('web')) as Json[];
      const c = claims.find((x) => web.some((p) => p.spec.nodeName === x.status?.nodeName));
      return c && { victim: c, nodeName: c.status.nodeName as string };
    }, 20_000, 'a NodeClaim whose node runs web pods');
    await env.k.ok(['delete', 'nodeclaim', victim.metadata.name, '--wait=false']);
    await eventually(async () => (await env.k.run(['get', 'node', nodeName])).code !== 0, 30_000, 'the node removed');
    await eventually(async () => (await env.k.run(['get', 'nodeclaim', victim.metadata.name])).code !== 0, 10_000, 'the nodeclaim removed');
    const evicted = await env.k.ok(['get', 'events', '--field-selector', 'reason=Evicted', '-o', 'jsonpath={.items[*].message}']);
    assert.match(evicted, /Evicted pod: Forceful Termination/);
    await eventually(async () => (await running('web')).length === 10, 40_000, 'web pods running again elsewhere');
  });
});
