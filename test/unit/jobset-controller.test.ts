// The JobSet controller in process, against the simulated cluster (clock at 10x): Job names, labels and the headless
// Service, InOrder startup, success, and the KEP-4443 pairing of named pod-failure-policy rules with JobSet
// failure-policy rules (restart, maxRestarts, fail at once).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../src/generated/k8s/batch/v1.js';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import type { KObject } from '../../src/machinery/types.js';
import type { JobSet } from '../../src/addons/jobset/types.js';
import { startJobSetEnv, until, type JobSetEnv } from './jobset-helpers.js';

type Json = Record<string, any>;
const JS = 'jobset.x-k8s.io/v1alpha2/jobsets';

const rjob = (name: string, replicas: number, command: string, extra: Json = {}, podAnnotations: Record<string, string> = {}) => ({
  name, replicas,
  template: {
    spec: {
      parallelism: 1, completions: 1, backoffLimit: 0, ...extra,
      template: { metadata: { annotations: podAnnotations }, spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', command] }] } },
    },
  },
});

const namedRules = {
  podFailurePolicy: {
    rules: [
      { name: 'oom', action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [3] } },
      { name: 'bad-config', action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [4] } },
    ],
  },
};
const failurePolicy = {
  maxRestarts: 1,
  rules: [
    { name: 'restartOnOOM', action: 'RestartJobSet', onJobFailureReasons: ['PodFailurePolicy_oom'] },
    { name: 'failOnBadConfig', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy_bad-config'] },
  ],
};

describe('JobSet controller (in process)', () => {
  let env: JobSetEnv;
  before(async () => {
    env = await startJobSetEnv();
  });
  after(async () => {
    await env?.close();
  });

  const js = (name: string) => env.client.get<JobSet>(JS, 'default', name);
  const jobsOf = (name: string) => env.client.list<Job>('batch/v1/jobs', 'default', { labelSelector: `jobset.sigs.k8s.io/jobset-name=${name}` });
  const cond = (name: string, type: string) => js(name)?.status?.conditions?.find((c) => c.type === type);

  it('driver then 4 workers (InOrder): names, labels, headless Service, Completed', async () => {
    const workersSeenBeforeDriverReady: string[] = [];
    const stopWatch = env.client.watch('batch/v1/jobs', (c) => {
      const job = c.object;
      if (c.type !== 'ADDED' || !job.metadata?.name?.startsWith('train-workers-')) return;
      const driverPods = env.client.list<Pod>('v1/pods', 'default', { labelSelector: 'jobset.sigs.k8s.io/replicatedjob-name=driver,jobset.sigs.k8s.io/jobset-name=train' });
      const ready = driverPods.some((p) => p.status?.conditions?.some((x) => x.type === 'Ready' && x.status === 'True'));
      if (!ready) workersSeenBeforeDriverReady.push(job.metadata.name);
    });
    env.client.create(JS, 'default', {
      apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'train' },
      spec: {
        startupPolicy: { startupPolicyOrder: 'InOrder' },
        replicatedJobs: [rjob('driver', 1, 'sleep 4', {}, { 'bonsai.dev/ready-seconds': '1' }), rjob('workers', 4, 'sleep 1')],
      },
    } as KObject);
    try {
      const done = await until(() => cond('train', 'Completed')?.status === 'True' && js('train'), 20_000, 'train Completed');
      assert.equal(done.status?.terminalState, 'Completed');
      assert.equal(done.status?.restarts, 0);
      assert.deepEqual(workersSeenBeforeDriverReady, []);
      assert.equal(cond('train', 'StartupPolicyCompleted')?.reason, 'InOrderStartupPolicyCompleted');
      assert.equal(cond('train', 'StartupPolicyInProgress')?.status, 'False');
      const statuses = Object.fromEntries((done.status?.replicatedJobsStatus ?? []).map((s) => [s.name, s.succeeded]));
      assert.deepEqual(statuses, { driver: 1, workers: 4 });
    } finally {
      stopWatch();
    }
    const jobs = jobsOf('train').map((j) => j.metadata?.name).sort();
    assert.deepEqual(jobs, ['train-driver-0', 'train-workers-0', 'train-workers-1', 'train-workers-2', 'train-workers-3']);
    const w2 = env.client.get<Job>('batch/v1/jobs', 'default', 'train-workers-2')!;
    const l = w2.metadata!.labels!;
    assert.equal(l['jobset.sigs.k8s.io/replicatedjob-name'], 'workers');
    assert.equal(l['jobset.sigs.k8s.io/job-index'], '2');
    assert.equal(l['jobset.sigs.k8s.io/job-global-index'], '3');
    assert.equal(l['jobset.sigs.k8s.io/global-replicas'], '5');
    assert.equal(l['jobset.sigs.k8s.io/replicatedjob-replicas'], '4');
    assert.equal(l['jobset.sigs.k8s.io/restart-attempt'], '0');
    assert.equal(l['jobset.sigs.k8s.io/group-name'], 'default');
    assert.match(l['jobset.sigs.k8s.io/job-key'], /^[0-9a-f]{40}$/);
    assert.equal(w2.metadata!.annotations!['jobset.sigs.k8s.io/job-global-index'], '3');
    assert.equal(w2.metadata!.ownerReferences?.[0].kind, 'JobSet');
    assert.equal(w2.spec?.completionMode, 'Indexed');
    const pod = env.client.list<Pod>('v1/pods', 'default', { labelSelector: 'job-name=train-workers-2' })[0];
    assert.equal(pod.metadata?.labels?.['jobset.sigs.k8s.io/jobset-name'], 'train');
    assert.equal(pod.spec?.subdomain, 'train');
    assert.equal(pod.spec?.hostname, 'train-workers-2-0');
    const svc = env.client.get('v1/services', 'default', 'train') as Json;
    assert.equal(svc.spec.clusterIP, 'None');
    assert.deepEqual(svc.spec.selector, { 'jobset.sigs.k8s.io/jobset-name': 'train' });
    assert.equal(svc.spec.publishNotReadyAddresses, true);
  });

  it('a named rule (PodFailurePolicy_oom) restarts the JobSet; maxRestarts 1 then fails it', async () => {
    const attempts = new Set<string>();
    const stopWatch = env.client.watch('batch/v1/jobs', (c) => {
      const l = (c.object).metadata?.labels;
      if (c.type === 'ADDED' && l?.['jobset.sigs.k8s.io/jobset-name'] === 'oom') attempts.add(`${c.object.metadata.name}@${l['jobset.sigs.k8s.io/restart-attempt']}`);
    });
    env.client.create(JS, 'default', {
      apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'oom' },
      spec: { failurePolicy, replicatedJobs: [rjob('driver', 1, 'sleep 30'), rjob('workers', 2, 'sleep 1; exit 3', namedRules)] },
    } as KObject);
    try {
      const failed = await until(() => cond('oom', 'Failed')?.status === 'True' && js('oom'), 30_000, 'oom Failed').catch((e: Error) => {
        const jobs = jobsOf('oom').map((j) => `${JSON.stringify(j.status)}${j.metadata?.name}@${j.metadata?.labels?.['jobset.sigs.k8s.io/restart-attempt']}${j.metadata?.deletionTimestamp ? ' deleting' : ''}`);
        const pods = env.client.list<Pod>('v1/pods', 'default', { labelSelector: 'jobset.sigs.k8s.io/jobset-name=oom' }).map((p) => JSON.stringify([p.metadata?.name, p.metadata?.annotations, p.status?.phase, p.metadata?.finalizers, p.metadata?.deletionTimestamp]));
        throw new Error(`${e.message}: ${JSON.stringify(js('oom')?.status)} ${jobs.join()} ${pods.join(' ')}`);
      });
      assert.equal(failed.status?.restarts, 1);
      assert.equal(failed.status?.restartsCountTowardsMax, 1);
      assert.equal(failed.status?.terminalState, 'Failed');
      const c = cond('oom', 'Failed')!;
      assert.equal(c.reason, 'ReachedMaxRestarts');
      assert.match(c.message, /^jobset failed due to reaching max number of restarts \(first failed job: oom-workers-\d\)$/);
      for (const name of ['oom-driver-0', 'oom-workers-0', 'oom-workers-1']) {
        assert.ok(attempts.has(`${name}@0`) && attempts.has(`${name}@1`), `${name} created in attempts 0 and 1: ${[...attempts]}`);
      }
      const restarting = cond('oom', 'RestartingJobSet')!;
      assert.deepEqual([restarting.status, restarting.reason], ['False', 'JobSetFailed']);
      const events = env.client.list('v1/events', 'default').filter((e) => (e as Json).involvedObject?.name === 'oom').map((e) => (e as Json).reason);
      assert.ok(events.includes('RestartJobSetFailurePolicyAction'), events.join());
      assert.ok(events.includes('ReachedMaxRestarts'), events.join());
      // A finished JobSet's active Jobs are deleted: the driver does not run on.
      await until(() => !env.client.get<Job>('batch/v1/jobs', 'default', 'oom-driver-0') || !!env.client.get<Job>('batch/v1/jobs', 'default', 'oom-driver-0')?.metadata?.deletionTimestamp, 10_000, 'driver deleted');
    } finally {
      stopWatch();
    }
  });

  it('a second named rule (PodFailurePolicy_bad-config) fails the JobSet at once', async () => {
    env.client.create(JS, 'default', {
      apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'bad' },
      spec: { failurePolicy: { ...failurePolicy, maxRestarts: 5 }, replicatedJobs: [rjob('workers', 2, 'exit 4', namedRules)] },
    } as KObject);
    const failed = await until(() => cond('bad', 'Failed')?.status === 'True' && js('bad'), 20_000, 'bad Failed');
    assert.equal(failed.status?.restarts, 0);
    const c = cond('bad', 'Failed')!;
    assert.equal(c.reason, 'FailJobSetFailurePolicyAction');
    assert.match(c.message, /^applying FailJobSet failure policy action \(first failed job: bad-workers-\d\)$/);
    const job = jobsOf('bad').find((j) => j.status?.conditions?.some((x) => x.type === 'Failed'))!;
    assert.equal(job.status?.conditions?.find((x) => x.type === 'Failed')?.reason, 'PodFailurePolicy_bad-config');
  });
  it('a stopped node fails its worker: the JobSet restarts and every pod runs again on other nodes', async () => {
    const tolerations = ['unreachable', 'not-ready'].map((t) => ({ key: `node.kubernetes.io/${t}`, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }));
    const workers = rjob('workers', 4, 'sleep 3600');
    (workers.template.spec.template.spec as Json).tolerations = tolerations;
    env.client.create(JS, 'default', {
      apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'ha' },
      spec: { failurePolicy: { maxRestarts: 3 }, replicatedJobs: [workers] },
    } as KObject);
    const pods = () => env.client.list<Pod>('v1/pods', 'default', { labelSelector: 'jobset.sigs.k8s.io/jobset-name=ha' });
    const running = (attempt: string) => pods().filter((p) => p.status?.phase === 'Running' && !p.metadata?.deletionTimestamp && p.metadata?.labels?.['jobset.sigs.k8s.io/restart-attempt'] === attempt);
    await until(() => running('0').length === 4, 20_000, '4 workers Running');
    const node = running('0')[0].spec!.nodeName!;
    env.b.setNodeStopped(node, true);
    try {
      const again = await until(() => (js('ha')?.status?.restarts === 1 && running('1').length === 4) && running('1'), 30_000, 'restart 1 Running');
      assert.ok(again.every((p) => p.spec?.nodeName !== node), again.map((p) => p.spec?.nodeName).join());
      await until(() => cond('ha', 'RestartingJobSet')?.reason === 'JobsReady', 5_000, 'RestartingJobSet False/JobsReady');
      assert.equal(js('ha')?.status?.restartsCountTowardsMax, 1);
    } finally {
      env.b.setNodeStopped(node, false);
    }
  });
  it('managedBy another controller: left alone; suspend then resume; dependsOn Complete; ttlSecondsAfterFinished', async () => {
    env.client.create(JS, 'default', {
      apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'elsewhere' },
      spec: { managedBy: 'example.com/other', replicatedJobs: [rjob('w', 1, 'sleep 1')] },
    } as KObject);
    env.client.create(JS, 'default', {
      apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'staged' },
      spec: {
        suspend: true, ttlSecondsAfterFinished: 5,
        replicatedJobs: [rjob('prep', 1, 'sleep 2'), { ...rjob('main', 2, 'sleep 1'), dependsOn: [{ name: 'prep', status: 'Complete' }] }],
      },
    } as KObject);
    await until(() => cond('staged', 'Suspended')?.status === 'True', 10_000, 'staged Suspended');
    assert.deepEqual(jobsOf('staged').map((j) => [j.metadata?.name, j.spec?.suspend]), [['staged-prep-0', true]]);
    await env.client.guaranteedUpdate(JS, 'default', 'staged', (cur) => ({ ...cur, spec: { ...(cur.spec as Json), suspend: false } }));
    await until(() => cond('staged', 'Suspended')?.reason === 'ResumeJobs', 10_000, 'staged resumed');
    // main waits for prep to complete.
    const mainCreated = await until(() => env.client.get<Job>('batch/v1/jobs', 'default', 'staged-main-0'), 20_000, 'main created');
    const prep = env.client.get<Job>('batch/v1/jobs', 'default', 'staged-prep-0')!;
    const prepDone = prep.status?.conditions?.find((c) => c.type === 'Complete')?.lastTransitionTime;
    assert.ok(prepDone && Date.parse(mainCreated.metadata!.creationTimestamp!) >= Date.parse(prepDone), `main ${mainCreated.metadata?.creationTimestamp} prep ${prepDone}`);
    await until(() => cond('staged', 'Completed')?.status === 'True', 20_000, 'staged Completed');
    await until(() => !js('staged'), 20_000, 'staged deleted after its TTL');
    assert.deepEqual(jobsOf('elsewhere'), []);
    assert.equal(js('elsewhere')?.status, undefined);
  });
});
