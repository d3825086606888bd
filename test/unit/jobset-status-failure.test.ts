// One JobSet whose status the API refuses (a failure-policy rule name that is no valid condition reason, created
// here past the webhook, as an object stored before the webhook existed would be) does not stall the controller:
// the refusal is told on that JobSet (a Warning event), it is retried, and another JobSet still runs to completion.
// The webhook itself refuses such a JobSet with upstream's text.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/machinery/types.js';
import type { JobSet } from '../../src/addons/jobset/types.js';
import { validateJobSetCreate, validateJobSetUpdate } from '../../src/addons/jobset/webhook.js';
import { statusWriteFailedReason } from '../../src/addons/status-write.js';
import { startJobSetEnv, until, type JobSetEnv } from './jobset-helpers.js';

type Json = Record<string, any>;
const JS = 'jobset.x-k8s.io/v1alpha2/jobsets';

const jobSet = (name: string, command: string, failurePolicy?: Json): KObject => ({
  apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name, namespace: 'default' },
  spec: {
    ...(failurePolicy ? { failurePolicy } : {}),
    replicatedJobs: [{
      name: 'w', replicas: 1,
      template: { spec: { parallelism: 1, completions: 1, backoffLimit: 0, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', command] }] } } } },
    }],
  },
});

const badRule = { maxRestarts: 3, rules: [{ name: 'retry-oom', action: 'RestartJobSet' }] };

describe('JobSet controller: a refused status write', () => {
  let env: JobSetEnv;
  before(async () => {
    env = await startJobSetEnv();
  });
  after(async () => {
    await env?.close();
  });

  it('is reported on its JobSet and retried while other JobSets keep being reconciled', async () => {
    env.client.create(JS, 'default', jobSet('bad', 'sleep 1; exit 1', badRule));
    const warning = await until(() => env.client.list<Json>('v1/events', 'default').find((e) => e.involvedObject?.name === 'bad' && e.reason === statusWriteFailedReason), 30_000, 'the StatusUpdateFailed event');
    assert.equal(warning.type, 'Warning');
    assert.match(warning.message, /^Failed to update status: JobSet\.jobset\.x-k8s\.io "bad" is invalid: .*"FailurePolicy_retry-oom"/);
    env.client.create(JS, 'default', jobSet('good', 'sleep 1'));
    await until(() => env.client.get<JobSet>(JS, 'default', 'good')?.status?.terminalState === 'Completed', 30_000, 'good Completed');
    // Still retried (with backoff): the event's count grows.
    await until(() => (env.client.list<Json>('v1/events', 'default').find((e) => e.involvedObject?.name === 'bad' && e.reason === statusWriteFailedReason)?.count ?? 0) > 1, 30_000, 'a retry');
  });

  it('the webhook refuses such a rule name, unknown targets and reasons, and duplicates, with upstream\'s texts', () => {
    const obj = jobSet('x', 'true', { rules: [
      { name: 'retry-oom', action: 'RestartJobSet', targetReplicatedJobs: ['nope'] },
      { name: 'ok', action: 'FailJobSet', onJobFailureReasons: ['OOMKilled'] },
      { name: 'ok', action: 'FailJobSet' },
    ] });
    const errs = validateJobSetCreate(env.client, obj).map((e) => `${e.field}: ${e.message}`);
    assert.deepEqual(errs, [
      "<nil>: Internal error: invalid failure policy rule name 'retry-oom', a failure policy rule name must start with an alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'",
      "<nil>: Internal error: invalid replicatedJob name 'nope' in failure policy does not appear in .spec.ReplicatedJobs",
      "<nil>: Internal error: invalid job failure reason 'OOMKilled' in failure policy is not a recognized job failure reason",
      "<nil>: Internal error: rule names are not unique, rules with indices [1 2] all have the same name 'ok'",
    ]);
    assert.deepEqual(validateJobSetCreate(env.client, jobSet('fine', 'true', { rules: [{ name: 'restart_on:OOM', action: 'RestartJobSet', onJobFailureReasons: ['PodFailurePolicy', 'PodFailurePolicy_bad-config'] }] })), []);
    const long = validateJobSetCreate(env.client, jobSet('a'.repeat(60), 'true')).map((e) => e.message);
    assert.ok(long.includes(`Invalid value: "${'a'.repeat(60)}-w-0": JobSet name is too long, job names generated for this JobSet will exceed 63 characters`), long.join('\n'));
  });

  it('the webhook keeps replicatedJobs immutable, except pod scheduling directives while suspended', () => {
    const old = jobSet('y', 'true');
    const changed = structuredClone(old) as Json;
    changed.spec.replicatedJobs[0].replicas = 2;
    assert.deepEqual(validateJobSetUpdate(changed as KObject, old).map((e) => `${e.field}: ${e.message.replace(/: \[.*\]:/, ': [...]:')}`), ['spec.replicatedJobs: Invalid value: [...]: field is immutable']);
    const suspended = structuredClone(old) as Json;
    suspended.spec.suspend = true;
    suspended.spec.replicatedJobs[0].template.spec.template.spec.nodeSelector = { zone: 'a' };
    assert.deepEqual(validateJobSetUpdate(suspended as KObject, old), []);
  });
});
