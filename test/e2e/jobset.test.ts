// JobSet (jobset.x-k8s.io/v1alpha2) with real kubectl on the default cluster, the clock at 10x: a driver and 4
// workers complete, InOrder starts the workers after the driver is Ready; KEP-4443 named pod-failure-policy rules
// paired with JobSet failure-policy rules restart the set (maxRestarts honoured) or fail it at once; a stopped node
// restarts the set onto the other nodes (each attempt gang-scheduled as one group).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { runBonsai } from '../helpers/server.js';

type Json = Record<string, any>;

const worker = (name: string, replicas: number, command: string, extra: Json = {}, pod: Json = {}) => ({
  name, replicas,
  template: {
    spec: {
      parallelism: 1, completions: 1, backoffLimit: 0, ...extra,
      template: { ...pod, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', command] }], ...pod.spec } },
    },
  },
});

const jobSet = (name: string, spec: Json) => JSON.stringify({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name }, spec });

// KEP-4443: the Job fails with reason PodFailurePolicy_<rule name>; the JobSet's rules match that reason.
const podFailurePolicy = {
  podFailurePolicy: {
    rules: [
      { name: 'oom', action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [137] } },
      { name: 'bad-config', action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [2] } },
    ],
  },
};
const failurePolicy = (maxRestarts: number) => ({
  maxRestarts,
  rules: [
    { name: 'restartOnOOM', action: 'RestartJobSet', onJobFailureReasons: ['PodFailurePolicy_oom'] },
    { name: 'failOnBadConfig', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy_bad-config'] },
  ],
});

describe('JobSet add-on', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '10'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const cond = (o: Json, type: string) => (o.status?.conditions ?? []).find((c: Json) => c.type === type);
  const apply = (manifest: string) => env.k.ok(['apply', '-f', '-'], { input: manifest });
  const served = () => eventually(async () => (await env.k.run(['get', 'jobsets'])).code === 0, 20_000, 'the JobSet CRD installed');

  it('a driver and 4 workers complete; InOrder starts the workers after the driver is Ready', async () => {
    await served();
    assert.match(await env.k.ok(['get', 'crd', 'jobsets.jobset.x-k8s.io']), /jobsets\.jobset\.x-k8s\.io/);
    await apply(jobSet('train', {
      startupPolicy: { startupPolicyOrder: 'InOrder' },
      replicatedJobs: [
        worker('driver', 1, 'sleep 40', {}, { metadata: { annotations: { 'bonsai.dev/ready-seconds': '30' } } }),
        worker('workers', 4, 'sleep 2'),
      ],
    }));
    const done = await eventually(async () => {
      const js = await getJson('jobset', 'train');
      return cond(js, 'Completed')?.status === 'True' && js;
    }, 30_000, 'train Completed');
    assert.equal(done.status.terminalState, 'Completed');
    assert.match(await env.k.ok(['get', 'jobset', 'train']), /^train\s+Completed\s+0\s+True\s/m);
    const jobs = (await getJson('jobs', '-l', 'jobset.sigs.k8s.io/jobset-name=train')).items as Json[];
    assert.deepEqual(jobs.map((j) => j.metadata.name).sort(), ['train-driver-0', 'train-workers-0', 'train-workers-1', 'train-workers-2', 'train-workers-3']);
    // The driver turns Ready 30 s after its container starts (timestamps have whole seconds): no worker Job before.
    const driverPod = ((await getJson('pods', '-l', 'jobset.sigs.k8s.io/replicatedjob-name=driver')).items as Json[])[0];
    const driverStarted = Date.parse(driverPod.status.containerStatuses[0].state.terminated.startedAt);
    for (const j of jobs.filter((x) => x.metadata.name.startsWith('train-workers-'))) {
      assert.ok(Date.parse(j.metadata.creationTimestamp) - driverStarted >= 29_000, `${j.metadata.name} created ${j.metadata.creationTimestamp}, driver started ${new Date(driverStarted).toISOString()}`);
      assert.equal(j.metadata.labels['jobset.sigs.k8s.io/restart-attempt'], '0');
    }
    assert.equal(cond(done, 'StartupPolicyCompleted')?.status, 'True');
    assert.match(await env.k.ok(['get', 'svc', 'train']), /^train\s+ClusterIP\s+None\s/m);
  });

  it('a worker exiting with a named rule\'s code restarts the JobSet; maxRestarts 1 then fails it', async () => {
    await served();
    await apply(jobSet('oom', { failurePolicy: failurePolicy(1), replicatedJobs: [worker('driver', 1, 'sleep 60'), worker('workers', 2, 'sleep 3; exit 137', podFailurePolicy)] }));
    // Attempt 1 lasts about as long as a worker's sleep before it fails and its active Jobs are deleted, so on a busy
    // machine one poll may see only some of its Jobs: gather what every poll sees.
    const recreated = new Set<string>();
    await eventually(async () => {
      const jobs = (await getJson('jobs', '-l', 'jobset.sigs.k8s.io/jobset-name=oom,jobset.sigs.k8s.io/restart-attempt=1')).items as Json[];
      for (const j of jobs) recreated.add(j.metadata.name);
      return recreated.size === 3;
    }, 30_000, 'all 3 jobs recreated with restart-attempt 1');
    assert.deepEqual([...recreated].sort(), ['oom-driver-0', 'oom-workers-0', 'oom-workers-1']);
    const failed = await eventually(async () => {
      const js = await getJson('jobset', 'oom');
      return cond(js, 'Failed')?.status === 'True' && js;
    }, 30_000, 'oom Failed after the second failure');
    assert.equal(failed.status.restarts, 1);
    assert.equal(cond(failed, 'Failed').reason, 'ReachedMaxRestarts');
    const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=oom']);
    assert.match(events, /RestartJobSetFailurePolicyAction\s+jobset\/oom\s+applying RestartJobSet failure policy action \(first failed job: oom-workers-\d\)/);
    // The worker that failed keeps its Job; the other one, still active when the JobSet failed, is deleted.
    const left = (await getJson('jobs', '-l', 'jobset.sigs.k8s.io/jobset-name=oom,jobset.sigs.k8s.io/replicatedjob-name=workers')).items as Json[];
    assert.ok(left.some((j) => cond(j, 'Failed')?.reason === 'PodFailurePolicy_oom'), JSON.stringify(left.map((j) => [j.metadata.name, j.status])));
  });

  it('a second named rule fails the JobSet at once with the matching reason', async () => {
    await served();
    await apply(jobSet('bad', { failurePolicy: failurePolicy(5), replicatedJobs: [worker('workers', 2, 'exit 2', podFailurePolicy)] }));
    const failed = await eventually(async () => {
      const js = await getJson('jobset', 'bad');
      return cond(js, 'Failed')?.status === 'True' && js;
    }, 20_000, 'bad Failed');
    assert.equal(failed.status.restarts, 0);
    assert.equal(cond(failed, 'Failed').reason, 'FailJobSetFailurePolicyAction');
    const jobs = (await getJson('jobs', '-l', 'jobset.sigs.k8s.io/jobset-name=bad')).items as Json[];
    assert.ok(jobs.some((j) => cond(j, 'Failed')?.reason === 'PodFailurePolicy_bad-config'), JSON.stringify(jobs.map((j) => j.status)));
  });

  it('the JobSet webhook refuses an invalid failure-policy rule name and a change of replicatedJobs', async () => {
    await served();
    const spec = { failurePolicy: { rules: [{ name: 'retry-oom', action: 'RestartJobSet' }] }, replicatedJobs: [worker('workers', 1, 'sleep 1')] };
    const r = await env.k.run(['apply', '-f', '-'], { input: jobSet('refused', spec) });
    assert.notEqual(r.code, 0);
    // A 422 with causes: kubectl prints the causes (the webhook's name is in the Status message only).
    assert.equal(r.stderr.trim(), 'The JobSet "refused" is invalid: <nil>: Internal error: invalid failure policy rule name \'retry-oom\', a failure policy rule name must '
      + 'start with an alphabetic character, optionally followed by a string of alphanumeric characters or \'_,:\', and must end with an alphanumeric character or \'_\'');
    assert.equal((await env.k.run(['get', 'jobset', 'refused'])).code, 1, 'nothing stored');
    await apply(jobSet('fixed', { ...spec, suspend: true, failurePolicy: { rules: [{ name: 'retry_oom', action: 'RestartJobSet' }] } }));
    const patch = await env.k.run(['patch', 'jobset', 'fixed', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/replicatedJobs/0/replicas","value":2}]']);
    assert.notEqual(patch.code, 0);
    assert.match(patch.stderr, /^The JobSet "fixed" is invalid: spec\.replicatedJobs: Invalid value: .*: field is immutable$/m);
    assert.equal((await getJson('jobset', 'fixed')).spec.replicatedJobs[0].replicas, 1);
    // Suspended, the pods' node selector may change.
    await env.k.ok(['patch', 'jobset', 'fixed', '--type', 'json', '-p', '[{"op":"add","path":"/spec/replicatedJobs/0/template/spec/template/spec/nodeSelector","value":{"zone":"a"}}]']);
  });

  it('bonsai node stop on a worker\'s node restarts the JobSet; all pods Running on other nodes', async () => {
    await served();
    const tolerations = ['unreachable', 'not-ready'].map((t) => ({ key: `node.kubernetes.io/${t}`, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }));
    await apply(jobSet('ha', { failurePolicy: { maxRestarts: 3 }, replicatedJobs: [worker('workers', 4, 'sleep 3600', {}, { spec: { tolerations } })] }));
    const running = async (attempt: number) => ((await getJson('pods', '-l', `jobset.sigs.k8s.io/jobset-name=ha,jobset.sigs.k8s.io/restart-attempt=${attempt}`)).items as Json[])
      .filter((p) => p.status.phase === 'Running' && !p.metadata.deletionTimestamp);
    const before = await eventually(async () => {
      const r = await running(0);
      return r.length === 4 && r;
    }, 20_000, '4 workers Running');
    // An AnyOrder set whose pods all start together is one gang per attempt (Bonsai's default), through a Workload.
    const wl = await getJson('workloads.scheduling.k8s.io', 'ha');
    assert.deepEqual(wl.spec.podGroups, [{ name: 'jobset', policy: { gang: { minCount: 4 } } }]);
    for (const p of before) assert.deepEqual(p.spec.workloadRef, { name: 'ha', podGroup: 'jobset', podGroupReplicaKey: '0' });
    const node = before[0].spec.nodeName as string;
    const stop = await runBonsai(['node', 'stop', node, '--kubeconfig', env.server.kubeconfig]);
    assert.equal(stop.code, 0, stop.stderr);
    try {
      const after = await eventually(async () => {
        const r = await running(1);
        return r.length === 4 && r;
      }, 40_000, 'restart attempt 1 Running');
      assert.ok(after.every((p) => p.spec.nodeName !== node), after.map((p) => p.spec.nodeName).join());
      for (const p of after) assert.equal(p.spec.workloadRef?.podGroupReplicaKey, '1', 'the new attempt is a new gang');
      const js = await getJson('jobset', 'ha');
      assert.equal(js.status.restarts, 1);
    } finally {
      await runBonsai(['node', 'start', node, '--kubeconfig', env.server.kubeconfig]);
    }
  });
});
