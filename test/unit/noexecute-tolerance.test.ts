// How long a pod stays on a node with NoExecute taints, as the taint eviction controller and the dashboard's node
// panel both read it: not tolerated (or tolerationSeconds <= 0) is now, the first matching toleration's seconds
// otherwise, forever without tolerationSeconds; over several taints the shortest wins.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evictionDelayMs, noExecuteToleranceMs } from '../../src/machinery/conditions.js';

const exam = { key: 'class', value: 'exam', effect: 'NoExecute' };
const gpu = { key: 'gpu', value: '', effect: 'NoExecute' };

test('one taint: now, after tolerationSeconds, or forever', () => {
  assert.equal(noExecuteToleranceMs(exam, []), 0);
  assert.equal(noExecuteToleranceMs(exam, [{ key: 'class', operator: 'Equal', value: 'other', effect: 'NoExecute', tolerationSeconds: 60 }]), 0);
  assert.equal(noExecuteToleranceMs(exam, [{ key: 'class', operator: 'Equal', value: 'exam', tolerationSeconds: 60 }]), 60_000);
  assert.equal(noExecuteToleranceMs(exam, [{ key: 'class', operator: 'Exists', tolerationSeconds: 0 }]), 0);
  assert.equal(noExecuteToleranceMs(exam, [{ key: 'class', operator: 'Exists', tolerationSeconds: -5 }]), 0);
  assert.equal(noExecuteToleranceMs(exam, [{ operator: 'Exists' }]), -1);
  // The first matching toleration decides, as the controller reads them.
  assert.equal(noExecuteToleranceMs(exam, [{ key: 'class', operator: 'Exists', tolerationSeconds: 30 }, { operator: 'Exists' }]), 30_000);
  assert.equal(noExecuteToleranceMs(exam, [{ key: 'class', operator: 'Exists', effect: 'NoSchedule' }]), 0);
});

test('several taints: the shortest, forever only when every taint is tolerated for good', () => {
  assert.equal(evictionDelayMs([], []), -1);
  assert.equal(evictionDelayMs([exam, gpu], [{ operator: 'Exists' }]), -1);
  assert.equal(evictionDelayMs([exam, gpu], [{ key: 'class', operator: 'Exists' }]), 0);
  assert.equal(evictionDelayMs([exam, gpu], [{ key: 'class', operator: 'Exists', tolerationSeconds: 90 }, { key: 'gpu', operator: 'Exists', tolerationSeconds: 30 }]), 30_000);
  assert.equal(evictionDelayMs([exam, gpu], [{ key: 'class', operator: 'Exists', tolerationSeconds: 90 }, { key: 'gpu', operator: 'Exists' }]), 90_000);
});
