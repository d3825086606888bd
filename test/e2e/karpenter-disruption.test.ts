// Karpenter disruption with real kubectl on a cluster without static nodes, the clock at 20x: an underutilised node
// whose pods fit on another is consolidated away once a PDB (maxUnavailable 0) that blocked it is deleted; a pod
// with karpenter.sh/do-not-disrupt keeps its node until it goes, then scaling to 0 consolidates the nodes away
// (WhenEmptyOrUnderutilized); a WhenEmpty NodePool with `budgets: [{nodes: "1"}]` removes its emptied nodes one at
// a time (asserted on a `kubectl get nodes -w`).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;

const nodeClass = { apiVersion: 'karpenter.kwok.sh/v1alpha1', kind: 'KWOKNodeClass', metadata: { name: 'default' } };
// One instance type (4 CPU, 3.9 allocatable) so the layout is predictable: three 1-CPU pods per node.
const nodePool = (name: string, disruption: Json, labels: Json = {}, spec: Json = {}) => ({
  apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name },
  spec: {
    disruption,
    template: {
      metadata: { labels: { pool: name, ...labels } },
      spec: {
        ...spec,
        nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' },
        requirements: [
          { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['c-4x-amd64-linux'] },
          { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] },
        ],
      },
    },
  },
});
const deployment = (name: string, pool: string, replicas: number) => ({
  apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name },
  spec: {
    replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { nodeSelector: { pool }, terminationGracePeriodSeconds: 5, containers: [{ name: 'main', image: 'nginx', resources: { requests: { cpu: '1', memory: '256Mi' } } }] } },
  },
});

describe('Karpenter disruption', () => {
  const env = useKubectlServer({ args: ['--addons', 'karpenter', '--nodes', '0', '--clock-speed', '20'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const apply = (obj: Json) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  const running = async (app: string) => ((await getJson('pods', '-l', `app=${app}`)).items as Json[]).filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp);
  const poolNodes = async (pool: string) => ((await getJson('nodes', '-l', `karpenter.sh/nodepool=${pool}`)).items as Json[]);
  const events = async (reason: string) => ((await getJson('events', '--field-selector', `reason=${reason}`)).items as Json[]);
  const messages = async (reason: string) => (await events(reason)).map((e) => `${e.involvedObject.kind}/${e.involvedObject.name}: ${e.message}`).join('\n');

  it('an underutilised node whose pods fit elsewhere is consolidated away, after the PDB blocking it is deleted', async () => {
    await eventually(async () => (await env.k.run(['get', 'nodepools,nodeclaims,kwoknodeclasses'])).code === 0, 20_000, 'the Karpenter CRDs installed');
    await apply(nodeClass);
    await apply(nodePool('web', { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '10s' }));
    // Three pods fill a node; a fourth needs a second node. Scaling to 2 then deletes from the fuller node first
    // (the ReplicaSet's ranking), leaving one pod on each: two underutilised nodes, either could go.
    await apply(deployment('u', 'web', 3));
    await eventually(async () => (await running('u')).length === 3, 30_000, '3 pods Running');
    assert.equal((await poolNodes('web')).length, 1);
    await env.k.ok(['scale', 'deployment/u', '--replicas', '4']);
    await eventually(async () => (await running('u')).length === 4, 30_000, '4 pods Running');
    assert.equal((await poolNodes('web')).length, 2);
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'u' }, spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'u' } } } });
    await env.k.ok(['scale', 'deployment/u', '--replicas', '2']);
    await eventually(async () => (await getJson('pods', '-l', 'app=u')).items.length === 2, 20_000, 'scaled to 2');
    assert.equal(new Set((await running('u')).map((p) => p.spec.nodeName)).size, 2, 'one pod on each node');
    const blocked = await eventually(async () => {
      const m = await messages('DisruptionBlocked');
      return /Pdb "default\/u" prevents pod evictions/.test(m) && m;
    }, 20_000, 'a DisruptionBlocked event naming the PDB');
    assert.match(blocked, /(Node|NodeClaim)\/web-\w{5}: Pdb "default\/u" prevents pod evictions/);
    assert.equal((await poolNodes('web')).length, 2, 'the PDB keeps both nodes');
    await env.k.ok(['delete', 'pdb', 'u']);
    await eventually(async () => (await poolNodes('web')).length === 1 && (await running('u')).length === 2, 30_000, 'one node left running both pods');
    const terminating = await messages('DisruptionTerminating');
    assert.match(terminating, /NodeClaim\/web-\w{5}: Disrupting NodeClaim: Underutilized\/Delete/);
    assert.match(terminating, /Node\/web-\w{5}: Disrupting Node: Underutilized\/Delete/);
    assert.match(await messages('Consolidating'), /Consolidation of node web-\w{5} because its pods fit elsewhere and it saves \$\d+\.\d\d\/h/);
  });

  it('karpenter.sh/do-not-disrupt on a pod blocks its node until it goes; scaling to 0 then consolidates the nodes away', async () => {
    await apply({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'pinned', annotations: { 'karpenter.sh/do-not-disrupt': 'true' } },
      spec: { nodeSelector: { pool: 'web' }, terminationGracePeriodSeconds: 0, containers: [{ name: 'main', image: 'nginx', resources: { requests: { cpu: '500m' } } }] },
    });
    await eventually(async () => (await getJson('pod', 'pinned')).status?.phase === 'Running', 20_000, 'pinned Running');
    await env.k.ok(['scale', 'deployment/u', '--replicas', '0']);
    await eventually(async () => /Pod "default\/pinned" has "karpenter.sh\/do-not-disrupt" annotation/.test(await messages('DisruptionBlocked')), 20_000, 'a DisruptionBlocked event naming the pod');
    assert.equal((await poolNodes('web')).length, 1, 'the annotated pod keeps its node');
    await env.k.ok(['delete', 'pod', 'pinned', '--wait=false']);
    await eventually(async () => (await poolNodes('web')).length === 0 && (await getJson('nodeclaims', '-l', 'karpenter.sh/nodepool=web')).items.length === 0, 30_000, 'the web nodes consolidated away');
    assert.match(await messages('DisruptionTerminating'), /Disrupting NodeClaim: Empty\/Delete/);
    assert.match(await messages('Consolidating'), /because it is empty and it saves \$\d+\.\d\d\/h/);
  });

  it('a WhenEmpty NodePool with budgets [{nodes: "1"}] removes its emptied nodes one at a time', async () => {
    await apply(nodePool('batch', { consolidationPolicy: 'WhenEmpty', consolidateAfter: '0s', budgets: [{ nodes: '1' }] }));
    await apply(deployment('w', 'batch', 9));
    await eventually(async () => (await running('w')).length === 9, 30_000, '9 pods Running');
    const names = (await poolNodes('batch')).map((n) => n.metadata.name as string);
    assert.ok(names.length >= 3, names.join());
    const watch = env.k.start(['get', 'nodes', '-l', 'karpenter.sh/nodepool=batch', '-w', '--output-watch-events', '-o',
      'custom-columns=EVENT:.type,NAME:.object.metadata.name,DELETING:.object.metadata.deletionTimestamp,TAINTS:.object.spec.taints[*].key']);
    try {
      await eventually(() => names.every((n) => watch.out().includes(n)), 10_000, 'the watch listing the nodes');
      await env.k.ok(['scale', 'deployment/w', '--replicas', '0']);
      await eventually(async () => (await poolNodes('batch')).length === 0, 40_000, 'the batch nodes removed');
      await eventually(() => names.every((n) => new RegExp(`^DELETED\\s+${n}\\s`, 'm').test(watch.out())), 10_000, 'the watch seeing every deletion');
    } finally {
      watch.stop();
    }
    // Replay the watch: at any moment at most one node is tainted karpenter.sh/disrupted or being deleted.
    const disrupted = new Set<string>();
    let most = 0;
    for (const line of watch.out().split('\n').slice(1)) {
      const [event, name, deleting, taints] = line.trim().split(/\s+/);
      if (!name || !names.includes(name)) continue;
      if (event === 'DELETED') disrupted.delete(name);
      else if (deleting !== '<none>' || (taints ?? '').split(',').includes('karpenter.sh/disrupted')) disrupted.add(name);
      else disrupted.delete(name);
      most = Math.max(most, disrupted.size);
    }
    assert.equal(most, 1, watch.out());
    assert.equal((await events('DisruptionTerminating')).filter((e) => e.involvedObject.kind === 'NodeClaim' && /^batch-/.test(e.involvedObject.name)).length, names.length);
  });

  it('a NodePool template change drifts its node: a replacement launches first, then the old NodeClaim goes', async () => {
    await apply(nodePool('drift', { consolidateAfter: 'Never' }));
    await apply(deployment('d', 'drift', 2));
    await eventually(async () => (await running('d')).length === 2, 30_000, '2 pods Running');
    const [old] = (await poolNodes('drift')).map((n) => n.metadata.name as string);
    // Watched, not polled: at this clock speed the drifted NodeClaim may be replaced between two polls.
    const watch = env.k.start(['get', 'nodeclaims', '-l', 'karpenter.sh/nodepool=drift', '-w', '-o',
      'jsonpath={.metadata.name} {.status.conditions[?(@.type=="Drifted")].status} {.status.conditions[?(@.type=="Drifted")].reason}{"\\n"}']);
    try {
      await eventually(() => watch.out().includes(old), 10_000, 'the watch listing the NodeClaim');
      await apply(nodePool('drift', { consolidateAfter: 'Never' }, { version: 'two' }));
      await eventually(async () => {
        const nodes = await poolNodes('drift');
        const pods = await running('d');
        return nodes.length === 1 && nodes[0].metadata.labels.version === 'two' && pods.length === 2 && pods.every((p) => p.spec.nodeName === nodes[0].metadata.name);
      }, 30_000, 'one replacement node labelled version=two running both pods');
      await eventually(() => new RegExp(`^${old} True NodePoolDrifted$`, 'm').test(watch.out()), 10_000, 'the NodeClaim Drifted in the watch');
    } finally {
      watch.stop();
    }
    assert.match(await messages('DisruptionTerminating'), new RegExp(`NodeClaim/${old}: Disrupting NodeClaim: Drifted/Replace`));
    assert.match(await messages('DisruptionLaunching'), /NodeClaim\/drift-\w{5}: Launching NodeClaim: Drifted/);
    await env.k.ok(['delete', 'deployment', 'd']);
  });

  it('expireAfter deletes the NodeClaim when it runs out; its pod comes back on a new one', async () => {
    await apply(nodePool('exp', { consolidateAfter: 'Never' }, {}, { expireAfter: '3m' }));
    await apply(deployment('e', 'exp', 1));
    await eventually(async () => (await running('e')).length === 1, 30_000, 'the pod Running');
    const [first] = (await poolNodes('exp')).map((n) => n.metadata.name as string);
    await eventually(async () => {
      const names = (await poolNodes('exp')).map((n) => n.metadata.name as string);
      const pods = await running('e');
      return !names.includes(first) && pods.length === 1 && names.includes(pods[0].spec.nodeName);
    }, 40_000, 'the expired node replaced and the pod Running again');
  });
});
