// HorizontalPodAutoscaler end to end with kubectl: `kubectl autoscale` on a Deployment, simulated CPU use raised
// and lowered through the pods' bonsai.dev/cpu-usage annotation (read live by the metrics), scale-out within the
// rate limits, scale-in after the (patched, shortened) stabilization window, the autoscaling/v1 view, describe,
// and the failure conditions for a missing target and for pods without requests. Clock at 20x: one 15 s sync
// period is 0.75 s.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

describe('HorizontalPodAutoscaler', () => {
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '20'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const condition = (hpa: Json, type: string) => (hpa.status?.conditions ?? []).find((c: Json) => c.type === type) as Json | undefined;
  const replicas = async (name: string) => (await getJson('deployment', name)).spec.replicas as number;
  const events = async (name: string) => ((await getJson('events', '--field-selector', `involvedObject.kind=HorizontalPodAutoscaler,involvedObject.name=${name}`)).items as Json[])
    .map((e) => `${e.type} ${e.reason} ${e.message}`);
  const setUsage = async (cpu: string) => env.k.ok(['annotate', 'pods', '-l', 'app=web', `bonsai.dev/cpu-usage=${cpu}`, '--overwrite']);

  it('scales a Deployment out on CPU use and back in after the stabilization window', async () => {
    await env.k.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    await env.k.ok(['set', 'resources', 'deployment', 'web', '--requests=cpu=100m']);
    await env.k.ok(['rollout', 'status', 'deployment/web', '--timeout=30s']);
    assert.match(await env.k.ok(['autoscale', 'deployment', 'web', '--min=2', '--max=6', '--cpu-percent=50']), /horizontalpodautoscaler.autoscaling\/web autoscaled/);

    // Idle pods use 40% of their request in the simulation: below the 50% target, inside the tolerance of 2 replicas.
    // A sync that ran while the rollout's pods were new may have recommended more than 2; the 5-minute scale-down
    // window (15 s here) then reports ScaleDownStabilized until that recommendation ages out.
    const steady = await eventually(async () => {
      const h = await getJson('hpa', 'web');
      return condition(h, 'ScalingActive')?.status === 'True' && h.status.currentMetrics?.[0]?.resource?.current?.averageUtilization === 40
        && condition(h, 'AbleToScale')?.reason !== 'ScaleDownStabilized' && h;
    }, 30_000, 'HPA reading 40% cpu, no longer stabilizing');
    assert.deepEqual({ current: steady.status.currentReplicas, desired: steady.status.desiredReplicas }, { current: 2, desired: 2 });
    assert.equal(steady.status.currentMetrics[0].resource.current.averageValue, '40m');
    assert.equal(condition(steady, 'ScalingActive')?.reason, 'ValidMetricFound');
    assert.equal(condition(steady, 'ScalingActive')?.message, 'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)');
    assert.equal(condition(steady, 'AbleToScale')?.reason, 'ReadyForNewScale');
    assert.deepEqual([condition(steady, 'ScalingLimited')?.status, condition(steady, 'ScalingLimited')?.reason], ['False', 'DesiredWithinRange']);
    assert.match(await env.k.ok(['get', 'hpa', 'web']), /^web\s+Deployment\/web\s+cpu: 40%\/50%\s+2\s+6\s+2\s+\S+$/m);

    // 200m of a 100m request: 400% of target. Without `behavior` a step may at most double (or add up to 4 pods).
    await setUsage('200m');
    await eventually(async () => (await replicas('web')) === 6, 20_000, 'scaled out to maxReplicas 6');
    const out = await events('web');
    assert.ok(out.includes('Normal SuccessfulRescale New size: 4; reason: cpu resource utilization (percentage of request) above target'), out.join('\n'));
    assert.ok(out.includes('Normal SuccessfulRescale New size: 6; reason: cpu resource utilization (percentage of request) above target'), out.join('\n'));
    const high = await eventually(async () => {
      const h = await getJson('hpa', 'web');
      return h.status.currentReplicas === 6 && condition(h, 'ScalingLimited')?.status === 'True' && h;
    }, 20_000, 'HPA limited at 6');
    assert.equal(condition(high, 'ScalingLimited')?.reason, 'TooManyReplicas');
    assert.ok(high.status.lastScaleTime, 'lastScaleTime is set');
    const v1 = JSON.parse(await env.k.ok(['get', '--raw', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web'])) as Json;
    assert.equal(v1.spec.targetCPUUtilizationPercentage, 50);
    assert.ok(v1.status.currentCPUUtilizationPercentage > 50, JSON.stringify(v1.status));
    const described = await env.k.ok(['describe', 'hpa', 'web']);
    assert.match(described, /resource cpu on pods\s+\(as a percentage of request\):\s+\d+% \(\d+m\) \/ 50%/);
    assert.match(described, /Deployment pods:\s+6 current \/ 6 desired/);
    assert.match(described, /ScalingLimited\s+True\s+TooManyReplicas\s+the desired replica count is more than the maximum replica count/);

    // A 60 s scale-down window (instead of 300 s) through `behavior`; then the load drops to 10%.
    await env.k.ok(['patch', 'hpa', 'web', '--type=merge', '-p', JSON.stringify({ spec: { behavior: { scaleDown: { stabilizationWindowSeconds: 60 } } } })]);
    const patched = await getJson('hpa', 'web');
    assert.deepEqual(patched.spec.behavior.scaleUp.policies, [{ type: 'Pods', value: 4, periodSeconds: 15 }, { type: 'Percent', value: 100, periodSeconds: 15 }]);
    // The hold is checked in the cluster's clock time, not by catching the held state live: at 20x a busy machine's
    // kubectl may not look before the window has passed.
    const clockNow = async () => Date.parse((JSON.parse(await env.k.ok(['get', '--raw', '/bonsai/v1/clock'])) as Json).now as string);
    const droppedBy = await clockNow();
    await setUsage('10m');
    await eventually(async () => (await replicas('web')) === 2, 20_000, 'scaled back in to 2');
    const scaledIn = Date.parse((await getJson('hpa', 'web')).status.lastScaleTime);
    // The last recommendation of 6 came at most one 15 s sync before the drop; the window keeps it 60 s after that.
    assert.ok(scaledIn - droppedBy >= 44_000, `scaled in ${scaledIn - droppedBy} ms of clock time after the load dropped: the window did not hold`);
    assert.ok((await events('web')).includes('Normal SuccessfulRescale New size: 2; reason: All metrics below target'));
    const low = await eventually(async () => {
      const h = await getJson('hpa', 'web');
      return h.status.desiredReplicas === 2 && h.status.currentReplicas === 2 && h;
    }, 20_000, 'HPA status at 2');
    assert.equal(low.status.observedGeneration, low.metadata.generation);
  });

  it('reports a missing scale target and pods without requests', async () => {
    const ghost = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'ghost' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'ghost' }, minReplicas: 1, maxReplicas: 3 },
    };
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(ghost) });
    const g = await eventually(async () => {
      const h = await getJson('hpa', 'ghost');
      return condition(h, 'AbleToScale')?.status === 'False' && h;
    }, 20_000, 'AbleToScale False');
    assert.equal(condition(g, 'AbleToScale')?.reason, 'FailedGetScale');
    assert.equal(condition(g, 'AbleToScale')?.message, 'the HPA controller was unable to get the target\'s current scale: deployments.apps "ghost" not found');
    assert.ok((await events('ghost')).includes('Warning FailedGetScale deployments.apps "ghost" not found'));
    assert.match(await env.k.ok(['get', 'hpa', 'ghost']), /^ghost\s+Deployment\/ghost\s+cpu: <unknown>\/80%\s+1\s+3\s+0\s+\S+$/m);

    await env.k.ok(['create', 'deployment', 'noreq', '--image=nginx', '--replicas=1']);
    await env.k.ok(['autoscale', 'deployment', 'noreq', '--max=3', '--cpu-percent=50']);
    const n = await eventually(async () => {
      const h = await getJson('hpa', 'noreq');
      return condition(h, 'ScalingActive')?.status === 'False' && h;
    }, 20_000, 'ScalingActive False');
    assert.equal(condition(n, 'ScalingActive')?.reason, 'FailedGetResourceMetric');
    assert.match(condition(n, 'ScalingActive')?.message, /^the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container nginx of Pod noreq-/);
    const ev = await events('noreq');
    assert.ok(ev.some((e) => e.startsWith('Warning FailedComputeMetricsReplicas invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: failed to get cpu utilization: missing request for cpu')), ev.join('\n'));
    assert.equal(await replicas('noreq'), 1);
  });
});
