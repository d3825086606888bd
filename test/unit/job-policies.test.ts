// Pure pieces of the Job controller: index intervals, pod failure policy matching (named rules), backoff,
// success policy, pending indexes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import type { PodFailurePolicy } from '../../src/generated/k8s/batch/v1.js';
import { formatIntervals, mergeIntervals, parseIntervals, totalOf, withIndexes } from '../../src/controllers/job/intervals.js';
import { matchPodFailurePolicy } from '../../src/controllers/job/pod-failure-policy.js';
import { backoffFor, nextBackoffRecord, remainingBackoffMs } from '../../src/controllers/job/backoff.js';
import { matchSuccessPolicy } from '../../src/controllers/job/success-policy.js';
import { firstPendingIndexes, indexedGenerateName } from '../../src/controllers/job/indexed.js';

test('index intervals parse, merge and print like completedIndexes', () => {
  assert.equal(formatIntervals(parseIntervals('0-2,4,6,7', 10)), '0-2,4,6,7');
  assert.equal(formatIntervals(withIndexes(parseIntervals('0-2,4', 10), [3, 5, 9])), '0-5,9');
  assert.equal(formatIntervals(parseIntervals('1,3-20', 6)), '1,3-5', 'clipped to completions');
  assert.equal(formatIntervals(parseIntervals('x,2', 6)), '2', 'garbage skipped');
  assert.equal(totalOf(parseIntervals('0-2,4,6,7', 10)), 6);
  assert.equal(formatIntervals(mergeIntervals(parseIntervals('0,1', 9), parseIntervals('2,8', 9))), '0-2,8');
  assert.deepEqual(firstPendingIndexes(3, 6, parseIntervals('0,2-3', 6)), [1, 4, 5]);
});

test('generateName of an Indexed pod keeps the index when the job name is long', () => {
  assert.equal(indexedGenerateName('pi', 3), 'pi-3-');
  const long = 'a'.repeat(70);
  const g = indexedGenerateName(long, 12);
  assert.equal(g.length, 58);
  assert.ok(g.endsWith('-12-'));
});

const failedPod = (exit: number, conditions: Array<{ type: string; status: string }> = [], container = 'main'): Pod => ({
  metadata: { name: 'x', namespace: 'default' },
  status: { phase: 'Failed', conditions, containerStatuses: [{ name: container, ready: false, restartCount: 0, image: 'i', imageID: '', state: { terminated: { exitCode: exit } } }] },
});

test('pod failure policy: first matching rule wins; named FailJob rules carry their name in the reason', () => {
  const policy = {
    rules: [
      { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] },
      { action: 'FailJob', name: 'fatal-config', onExitCodes: { containerName: 'main', operator: 'In', values: [42] } },
      { action: 'FailJob', onExitCodes: { operator: 'In', values: [43] } },
      { action: 'Count', onExitCodes: { operator: 'NotIn', values: [1, 2] } },
    ],
  } as PodFailurePolicy;
  const named = matchPodFailurePolicy(policy, failedPod(42));
  assert.equal(named.action, 'FailJob');
  assert.equal(named.failJobReason, 'PodFailurePolicy_fatal-config');
  assert.equal(named.failJobMessage, 'Container main for pod default/x failed with exit code 42 matching FailJob rule at index 1');
  assert.equal(matchPodFailurePolicy(policy, failedPod(43)).failJobReason, 'PodFailurePolicy');
  assert.equal(matchPodFailurePolicy(policy, failedPod(42, [], 'other')).action, 'Count', 'containerName restricts the match');
  const ignored = matchPodFailurePolicy(policy, failedPod(42, [{ type: 'DisruptionTarget', status: 'True' }]));
  assert.deepEqual([ignored.action, ignored.countFailed], ['Ignore', false]);
  assert.deepEqual(matchPodFailurePolicy(policy, failedPod(1)), { countFailed: true });
  assert.deepEqual(matchPodFailurePolicy(undefined, failedPod(42)), { countFailed: true });
  const byCondition = matchPodFailurePolicy({ rules: [{ action: 'FailJob', onPodConditions: [{ type: 'ConfigIssue', status: 'True' }] }] }, failedPod(0, [{ type: 'ConfigIssue', status: 'True' }]));
  assert.equal(byCondition.failJobMessage, 'Pod default/x has condition ConfigIssue matching FailJob rule at index 0');
});

test('pod re-creation backoff: 10 s doubling to the cap, reset by a later success', () => {
  assert.deepEqual([1, 2, 3, 4].map((n) => backoffFor(n)), [10_000, 20_000, 40_000, 80_000]);
  assert.equal(backoffFor(20), 600_000);
  assert.equal(remainingBackoffMs(2, 1_000, 6_000), 15_000);
  assert.equal(remainingBackoffMs(1, 1_000, 60_000), 0);
  const finished = (ms: number, phase: 'Succeeded' | 'Failed'): Pod => ({
    metadata: { creationTimestamp: new Date(0).toISOString() },
    status: { phase, containerStatuses: [{ name: 'm', ready: false, restartCount: 0, image: 'i', imageID: '', state: { terminated: { exitCode: phase === 'Failed' ? 1 : 0, finishedAt: new Date(ms).toISOString() } } }] },
  });
  const r1 = nextBackoffRecord(undefined, [], [finished(1_000, 'Failed'), finished(3_000, 'Failed')]);
  assert.deepEqual(r1, { failuresAfterLastSuccess: 2, lastFailureMs: 3_000 });
  assert.deepEqual(nextBackoffRecord(r1, [finished(4_000, 'Succeeded')], []), { failuresAfterLastSuccess: 0 });
  assert.deepEqual(nextBackoffRecord(r1, [finished(4_000, 'Succeeded')], [finished(2_000, 'Failed'), finished(5_000, 'Failed')]), { failuresAfterLastSuccess: 1, lastFailureMs: 5_000 });
});

test('success policy rules: succeededIndexes, succeededCount, both', () => {
  const done = parseIntervals('0,2-4', 10);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0' }] }, 10, done), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-1' }] }, 10, done), undefined);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededIndexes: '0-1' }, { succeededIndexes: '1-5', succeededCount: 3 }] }, 10, done), 'Matched rules at index 1');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 5 }] }, 10, done), undefined);
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 4 }] }, 10, done), 'Matched rules at index 0');
  assert.equal(matchSuccessPolicy({ rules: [{ succeededCount: 1 }] }, 10, []), undefined);
});
