import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ruleNameErrors, validatePodFailurePolicy, validatePodReplacementPolicy } from '../../src/registry/validation/pod-failure-policy.js';

const spec = (rules: unknown[], extra: Record<string, unknown> = {}) => ({
  ...extra,
  podFailurePolicy: { rules },
  template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main' }], initContainers: [{ name: 'init' }] } },
});
const rule = (name: unknown, values = [1]) => ({ name, action: 'FailJob', onExitCodes: { operator: 'In', values } });

test('rule names: letters first, letters/digits/_/- after, not ending in -, at most 63 characters', () => {
  for (const ok of ['fatal-config', 'OOM_killed', 'a', 'Retry2', `a${'b'.repeat(62)}`, 'x_']) assert.deepEqual(ruleNameErrors(ok), [], ok);
  for (const bad of ['', '9lives', '-x', 'x-', 'has space', 'dot.ted', 'colon:x', `a${'b'.repeat(63)}`]) assert.ok(ruleNameErrors(bad).length > 0, bad);
  assert.deepEqual(ruleNameErrors(`a${'b'.repeat(63)}`), ['must be no more than 63 characters']);
});

test('named rules: unique within the Job; unnamed rules are fine', () => {
  assert.deepEqual(validatePodFailurePolicy(spec([rule('a'), rule(undefined), rule('b')]), 'spec'), []);
  assert.deepEqual(validatePodFailurePolicy(spec([rule('a'), rule('b'), rule('a')]), 'spec'), [
    { type: 'FieldValueDuplicate', field: 'spec.podFailurePolicy.rules[2].name', message: 'Duplicate value: "a"' },
  ]);
  const [e] = validatePodFailurePolicy(spec([rule('bad name')]), 'spec.jobTemplate.spec');
  assert.equal(e.field, 'spec.jobTemplate.spec.podFailurePolicy.rules[0].name');
  assert.match(e.message, /^Invalid value: "bad name": a pod failure policy rule name must consist of/);
});

test('upstream rule checks: limits, required fields, container names, FailIndex', () => {
  const many = Array.from({ length: 21 }, () => rule(undefined));
  assert.deepEqual(validatePodFailurePolicy(spec(many), 'spec')[0], { type: 'FieldValueTooMany', field: 'spec.podFailurePolicy.rules', message: 'Too many: 21: must have at most 20 items' });
  assert.deepEqual(validatePodFailurePolicy(spec([{ onExitCodes: { values: [1] } }]), 'spec').map((e) => `${e.field}: ${e.message}`), [
    'spec.podFailurePolicy.rules[0].action: Required value: valid values: ["Count" "FailIndex" "FailJob" "Ignore"]',
    'spec.podFailurePolicy.rules[0].onExitCodes.operator: Required value: valid values: ["In" "NotIn"]',
  ]);
  assert.deepEqual(validatePodFailurePolicy(spec([{ action: 'Ignore', onExitCodes: { operator: 'NotIn', values: [0], containerName: 'init' } }]), 'spec'), []);
  assert.deepEqual(validatePodFailurePolicy(spec([{ action: 'FailIndex', onPodConditions: [{ type: 'DisruptionTarget', status: 'True' }] }], { backoffLimitPerIndex: 1 }), 'spec'), []);
  assert.deepEqual(validatePodFailurePolicy(spec([{ action: 'Count', onExitCodes: { operator: 'In', values: [] } }]), 'spec').map((e) => e.message), [
    'Invalid value: []: at least one value is required',
  ]);
  assert.deepEqual(validatePodFailurePolicy({ template: {} }, 'spec'), []);
});

test('podReplacementPolicy must be Failed with a podFailurePolicy', () => {
  assert.deepEqual(validatePodReplacementPolicy(spec([], { podReplacementPolicy: 'Failed' }), 'spec'), []);
  assert.deepEqual(validatePodReplacementPolicy(spec([], { podReplacementPolicy: 'TerminatingOrFailed' }), 'spec').map((e) => e.message), [
    'Unsupported value: "TerminatingOrFailed": supported values: "Failed"',
  ]);
  assert.deepEqual(validatePodReplacementPolicy({ podReplacementPolicy: 'TerminatingOrFailed' }, 'spec'), []);
});
