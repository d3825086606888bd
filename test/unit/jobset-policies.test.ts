// JobSet policies as pure functions: webhook defaults, Job construction, child-Job classification, conditions,
// failure-policy rule matching and actions, success policy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Job } from '../../src/generated/k8s/batch/v1.js';
import { effectiveSpec } from '../../src/addons/jobset/defaults.js';
import { buildJob, coordinatorEndpoint } from '../../src/addons/jobset/jobs.js';
import { classify, replicatedJobStatuses } from '../../src/addons/jobset/child-jobs.js';
import { updateCondition, type StatusUpdate } from '../../src/addons/jobset/conditions.js';
import { executeFailurePolicy, matchRule } from '../../src/addons/jobset/failure-policy.js';
import { loadPatterns } from '../../src/addons/jobset/patterns.js';
import { successPolicyMet } from '../../src/addons/jobset/controller.js';
import type { JobSet, JobSetSpec } from '../../src/addons/jobset/types.js';

const now = new Date(Date.UTC(2026, 0, 1));
const jobSet = (spec: JobSetSpec, status: JobSet['status'] = {}): JobSet => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js', namespace: 'ns', uid: 'u1' }, spec, status,
});
const rj = (name: string, replicas = 1) => ({ name, replicas, template: { spec: { template: { spec: { containers: [{ name: 'c', image: 'x' }] } } } } });

function job(rjob: string, index: number, opts: { attempt?: number; failed?: [reason: string, message: string, at: string]; complete?: boolean } = {}): Job {
  const conditions = [];
  if (opts.failed) conditions.push({ type: 'Failed', status: 'True', reason: opts.failed[0], message: opts.failed[1], lastTransitionTime: opts.failed[2] });
  if (opts.complete) conditions.push({ type: 'Complete', status: 'True' });
  return {
    metadata: { name: `js-${rjob}-${index}`, labels: { 'jobset.sigs.k8s.io/replicatedjob-name': rjob, 'jobset.sigs.k8s.io/job-index': String(index), 'jobset.sigs.k8s.io/restart-attempt': String(opts.attempt ?? 0), 'jobset.sigs.k8s.io/job-restart-attempt': '0' } },
    spec: { template: {} }, status: { conditions },
  };
}

test('webhook defaults: All, AnyOrder, DNS hostnames, rule names, Indexed/OnFailure templates', () => {
  const spec = effectiveSpec(jobSet({ replicatedJobs: [rj('w', 2)], failurePolicy: { rules: [{ name: '', action: 'FailJobSet' }, { name: 'mine', action: 'RestartJobSet' }] } }));
  assert.deepEqual(spec.successPolicy, { operator: 'All' });
  assert.deepEqual(spec.startupPolicy, { startupPolicyOrder: 'AnyOrder' });
  assert.equal(spec.network.enableDNSHostnames, true);
  assert.deepEqual(spec.failurePolicy?.rules?.map((r) => r.name), ['failurePolicyRule0', 'mine']);
  const js = jobSet({ replicatedJobs: [rj('w', 2)], coordinator: { replicatedJob: 'w', jobIndex: 1 } });
  const j = buildJob(js, effectiveSpec(js), effectiveSpec(js).replicatedJobs[0], 1, 0);
  assert.equal(j.metadata?.name, 'js-w-1');
  assert.equal(j.spec?.completionMode, 'Indexed');
  assert.equal(j.spec?.template.spec?.restartPolicy, 'OnFailure');
  assert.equal(j.spec?.template.spec?.subdomain, 'js');
  assert.equal(j.spec?.suspend, false);
  assert.equal(j.metadata?.labels?.['jobset.sigs.k8s.io/coordinator'], 'js-w-1-0.js');
  assert.equal(coordinatorEndpoint(js, effectiveSpec(js)), 'js-w-1-0.js');
  // The stored template is never touched.
  assert.equal(js.spec?.replicatedJobs?.[0].template.spec?.completionMode, undefined);
});

test('classify: earlier attempts are previous; the rest by their finished condition; status counts', () => {
  const js = jobSet({ replicatedJobs: [rj('a', 2), rj('b', 1)] }, { restarts: 1 });
  const spec = effectiveSpec(js);
  const jobs = classify(js, spec, [job('a', 0, { attempt: 0 }), job('a', 0, { attempt: 1, complete: true }), job('a', 1, { attempt: 1 }), job('b', 0, { attempt: 1, failed: ['BackoffLimitExceeded', 'm', '2026-01-01T00:00:00Z'] })]);
  assert.deepEqual([jobs.previous.length, jobs.successful.length, jobs.active.length, jobs.failed.length], [1, 1, 1, 1]);
  const s = replicatedJobStatuses(js, spec, jobs);
  assert.deepEqual(s.map((x) => [x.name, x.succeeded, x.active, x.failed]), [['a', 1, 0, 0], ['b', 0, 0, 1]]);
});

test('conditions: added when True, changed in place, startup conditions exclusive', () => {
  const js = jobSet({});
  assert.equal(updateCondition(js, { type: 'Suspended', status: 'False', reason: 'ResumeJobs', message: 'm' }, now), false);
  assert.equal(updateCondition(js, { type: 'StartupPolicyInProgress', status: 'True', reason: 'r', message: 'm' }, now), true);
  assert.equal(updateCondition(js, { type: 'StartupPolicyInProgress', status: 'True', reason: 'r', message: 'm' }, now), false);
  assert.equal(updateCondition(js, { type: 'StartupPolicyCompleted', status: 'True', reason: 'r', message: 'm' }, now), true);
  assert.deepEqual(js.status?.conditions?.map((c) => `${c.type}=${c.status}`), ['StartupPolicyInProgress=False', 'StartupPolicyCompleted=True']);
});

test('failure policy: first matching rule wins, earliest failure names the job, patterns are RE2', async () => {
  await loadPatterns();
  const failed = [
    job('w', 0, { failed: ['PodFailurePolicy_oom', 'Container main failed with exit code 3', '2026-01-01T00:00:05Z'] }),
    job('w', 1, { failed: ['PodFailurePolicy_oom', 'Container main failed with exit code 3', '2026-01-01T00:00:02Z'] }),
    job('d', 0, { failed: ['BackoffLimitExceeded', 'Job has reached the specified backoff limit', '2026-01-01T00:00:01Z'] }),
  ];
  const m = matchRule([
    { name: 'never', action: 'FailJobSet', onJobFailureReasons: ['DeadlineExceeded'] },
    { name: 'oom', action: 'RestartJobSet', onJobFailureReasons: ['PodFailurePolicy_oom'], targetReplicatedJobs: ['w'] },
  ], failed);
  assert.equal(m?.rule.name, 'oom');
  assert.equal(m?.job.metadata?.name, 'js-w-1');
  assert.equal(matchRule([{ name: 'p', action: 'FailJobSet', onJobFailureMessagePatterns: ['exit code [0-9]+$'] }], failed)?.job.metadata?.name, 'js-w-1');
  assert.equal(matchRule([{ name: 'p', action: 'FailJobSet', onJobFailureMessagePatterns: ['(a+)+$', '(?<bad'] }], failed), undefined);
  assert.equal(matchRule([{ name: 'p', action: 'FailJobSet', targetReplicatedJobs: ['other'] }], failed), undefined);
});

test('failure policy actions: restart counts, maxRestarts, ignore-max, no policy, RestartJob', () => {
  const failed = [job('w', 0, { failed: ['PodFailurePolicy_oom', 'm', '2026-01-01T00:00:05Z'] })];
  const run = (js: JobSet) => {
    const u: StatusUpdate = { changed: false, events: [] };
    executeFailurePolicy(js, effectiveSpec(js), failed, u, now);
    return u;
  };
  const policy = (action: string, maxRestarts = 1) => ({ replicatedJobs: [rj('w', 2)], failurePolicy: { maxRestarts, rules: [{ name: 'oom', action: action as 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy_oom'] }] } });
  let js = jobSet(policy('RestartJobSet'));
  let u = run(js);
  assert.deepEqual([js.status?.restarts, js.status?.restartsCountTowardsMax], [1, 1]);
  assert.equal(js.status?.conditions?.find((c) => c.type === 'RestartingJobSet')?.reason, 'FailurePolicy_oom');
  assert.ok(u.events.some((e) => e.reason === 'RestartJobSetFailurePolicyAction'));
  u = run(js);
  assert.equal(js.status?.conditions?.find((c) => c.type === 'Failed')?.reason, 'ReachedMaxRestarts');
  assert.equal(js.status?.restarts, 1);
  js = jobSet(policy('RestartJobSetAndIgnoreMaxRestarts', 0));
  run(js);
  assert.deepEqual([js.status?.restarts, js.status?.restartsCountTowardsMax], [1, undefined]);
  js = jobSet({ replicatedJobs: [rj('w', 2)] });
  run(js);
  assert.equal(js.status?.conditions?.find((c) => c.type === 'Failed')?.message, 'jobset failed due to one or more job failures (first failed job: js-w-0)');
  js = jobSet(policy('RestartJob', 3), { replicatedJobsStatus: [{ name: 'w', ready: 0, succeeded: 0, failed: 1, active: 1, suspended: 0 }] });
  run(js);
  assert.deepEqual(js.status?.replicatedJobsStatus?.[0].jobRestarts, [1, 0]);
  assert.deepEqual(js.status?.replicatedJobsStatus?.[0].jobRestartsCountTowardsMax, [1, 0]);
  assert.equal(js.status?.restarts, undefined);
  // The restarted job's old incarnation is now "previous".
  assert.equal(classify(js, effectiveSpec(js), failed).previous.length, 1);
});

test('success policy: All over targets, Any', () => {
  const done = [job('w', 0, { complete: true }), job('w', 1, { complete: true })];
  const spec = (s: JobSetSpec['successPolicy']) => effectiveSpec(jobSet({ replicatedJobs: [rj('d'), rj('w', 2)], successPolicy: s }));
  assert.equal(successPolicyMet(spec(undefined), done), false);
  assert.equal(successPolicyMet(spec({ operator: 'All', targetReplicatedJobs: ['w'] }), done), true);
  assert.equal(successPolicyMet(spec({ operator: 'Any', targetReplicatedJobs: ['d'] }), done), false);
  assert.equal(successPolicyMet(spec({ operator: 'Any' }), done.slice(0, 1)), true);
});
