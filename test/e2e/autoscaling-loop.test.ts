// The whole autoscaling loop with real kubectl, on a cluster whose only static node is its tainted control-plane node,
// as a kind cluster running Karpenter's kwok provider (clock at 20x): a queue this test
// serves rises, KEDA activates the Deployment and its HPA raises the replicas through external.metrics.k8s.io, the
// pods go Pending, Karpenter nominates them to NodeClaims whose nodes join, the pods run; the queue empties, KEDA
// takes the Deployment to 0 after its cooldown, and Karpenter consolidates the empty nodes away. The story is read
// back from `kubectl get events` in the order it was recorded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { useQueueEndpoint } from '../helpers/queue-endpoint.js';

type Json = Record<string, any>;

const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-loop-')), 'cluster.yaml');
writeFileSync(clusterFile, 'nodePools: []\naddons:\n  karpenter:\n    launchSeconds: 2\n    startupTaintSeconds: 1\n');

describe('the autoscaling loop: KEDA, HPA, scheduler and Karpenter', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '20', '--cluster', clusterFile, '--addons', 'karpenter,keda'] });
  const q = useQueueEndpoint();
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const apply = (obj: Json) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(obj) });
  const pods = async () => (await getJson('pods', '-l', 'app=worker')).items as Json[];

  it('scales out onto new nodes as the queue grows and gives the nodes back when it empties', async () => {
    await eventually(async () => (await env.k.run(['get', 'nodepools,scaledobjects'])).code === 0, 20_000, 'the Karpenter and KEDA CRDs installed');
    const nodeNames = async () => ((await getJson('nodes')).items as Json[]).map((n) => n.metadata.name as string);
    assert.deepEqual(await nodeNames(), ['bonsai-control-plane']);
    await apply({ apiVersion: 'karpenter.kwok.sh/v1alpha1', kind: 'KWOKNodeClass', metadata: { name: 'default' } });
    await apply({
      apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' },
      spec: {
        template: { spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [{ key: 'karpenter.sh/capacity-type', operator: 'In', values: ['on-demand'] }] } },
        disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '10s' },
      },
    });
    await apply({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'worker' },
      spec: {
        replicas: 0, selector: { matchLabels: { app: 'worker' } },
        template: { metadata: { labels: { app: 'worker' } }, spec: { containers: [{ name: 'main', image: 'worker', resources: { requests: { cpu: '1', memory: '1Gi' } } }] } },
      },
    });
    q.set(0);
    await apply({
      apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: { name: 'worker' },
      spec: {
        scaleTargetRef: { name: 'worker' }, minReplicaCount: 0, maxReplicaCount: 6, pollingInterval: 5, cooldownPeriod: 30,
        advanced: { horizontalPodAutoscalerConfig: { behavior: { scaleDown: { stabilizationWindowSeconds: 0 } } } },
        triggers: [{ type: 'metrics-api', metadata: { url: q.url(), valueLocation: 'queue.depth', targetValue: '1' } }],
      },
    });
    await eventually(async () => (await getJson('scaledobject', 'worker')).status?.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True'), 20_000, 'the ScaledObject Ready');

    // Demand: six items, one per pod. No node can take them (the control-plane node's taint), so every pod waits for
    // Karpenter.
    q.set(6);
    // Read together, pods then nodes: at 20x, consolidation (after 10 simulated seconds) may move a pod between two
    // reads, so the check waits for a snapshot in which all six run, each on a node of the NodePool.
    const notOnKarpenter = (ps: Json[], nodes: Json[]) => ps.filter((p) => !nodes.some((n) => n.metadata.name === p.spec.nodeName && n.metadata.labels['karpenter.sh/nodepool'] === 'default'));
    await eventually(async () => {
      const ps = await pods();
      if (ps.length !== 6 || !ps.every((p) => p.status?.phase === 'Running')) return false;
      return notOnKarpenter(ps, (await getJson('nodes')).items as Json[]).length === 0;
    }, 60_000, 'six worker pods Running, each on a node of the Karpenter NodePool');
    const claims = (await getJson('nodeclaims')).items as Json[];
    assert.ok(claims.length >= 1, 'Karpenter launched NodeClaims');

    // The queue empties: KEDA waits out its cooldown, scales to zero, and the empty nodes are consolidated away.
    q.set(0);
    await eventually(async () => (await getJson('deployment', 'worker')).spec.replicas === 0, 60_000, 'KEDA took the Deployment to 0');
    await eventually(async () => (await getJson('nodeclaims')).items.length === 0 && (await nodeNames()).join() === 'bonsai-control-plane', 60_000, 'the nodes consolidated away, the control-plane node kept');

    // The story, in the order the events were recorded (resourceVersion is the order of writes).
    const events = ((await getJson('events')).items as Json[])
      .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
      .map((e) => `${e.involvedObject.kind} ${e.reason} ${e.message}`);
    const find = (re: RegExp, from: 'first' | 'last' = 'first') => {
      const matches = events.flatMap((e, i) => (re.test(e) ? [i] : []));
      const i = (from === 'first' ? matches[0] : matches[matches.length - 1]) ?? -1;
      assert.ok(i >= 0, `no event matches ${re}:\n${events.join('\n')}`);
      return i;
    };
    const activated = find(/^ScaledObject KEDAScaleTargetActivated Scaled apps\/v1\.Deployment default\/worker from 0 to 1/);
    const unschedulable = find(/^Pod FailedScheduling /);
    const nominated = find(/^Pod Nominated Pod should schedule on: nodeclaim\/default-\w{5}/);
    const scheduled = find(/^Pod Scheduled Successfully assigned default\/worker-\S+ to default-\w{5}/);
    const rescaled = find(/^HorizontalPodAutoscaler SuccessfulRescale New size: \d+; reason: external metric s0-metric-api-queue-depth.* above target/);
    const lastNominated = find(/^Pod Nominated /, 'last');
    const deactivated = find(/^ScaledObject KEDAScaleTargetDeactivated Deactivated apps\/v1\.Deployment default\/worker from \d+ to 0/);
    const consolidated = find(/^NodeClaim DisruptionTerminating Disrupting NodeClaim: Empty\/Delete/, 'last');
    // KEDA's activation makes the first pod, which no node can take: Karpenter nominates it to a NodeClaim, and it is
    // scheduled once the node joins. The HPA's scale-out makes more pods that are nominated to new claims. The empty
    // queue deactivates the Deployment, and only then are the empty nodes consolidated.
    const order = (steps: Array<[string, number]>) => {
      for (let i = 1; i < steps.length; i++) assert.ok(steps[i - 1][1] < steps[i][1], `${steps[i - 1][0]} before ${steps[i][0]}:\n${events.join('\n')}`);
    };
    order([['activated', activated], ['unschedulable', unschedulable], ['nominated', nominated], ['scheduled', scheduled]]);
    order([['activated', activated], ['rescaled', rescaled], ['nominated after the rescale', lastNominated], ['deactivated', deactivated], ['consolidated', consolidated]]);
  });
});
