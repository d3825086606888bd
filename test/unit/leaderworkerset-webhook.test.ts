// The LeaderWorkerSet validating webhook's checks, one by one, with upstream's field paths and texts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/machinery/types.js';
import { validateLws, validateLwsUpdate } from '../../src/addons/lws/webhook.js';

type Json = Record<string, any>;

const lws = (spec: Json, tmpl: Json = {}, annotations?: Record<string, string>): KObject => ({
  apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name: 'x', namespace: 'default', ...(annotations ? { annotations } : {}) },
  spec: { replicas: 2, ...spec, leaderWorkerTemplate: { size: 4, workerTemplate: {}, ...tmpl } },
});

const texts = (o: KObject, old?: KObject) => (old ? validateLwsUpdate(o, old) : validateLws(o)).map((e) => `${e.field}: ${e.message}`);
const ru = 'spec.rolloutStrategy.rollingUpdateConfiguration';

describe('LeaderWorkerSet webhook', () => {
  it('admits a plain set', () => {
    assert.deepEqual(texts(lws({})), []);
    assert.deepEqual(texts(lws({ replicas: 0, rolloutStrategy: { type: 'RollingUpdate', rollingUpdateConfiguration: { maxUnavailable: 0, maxSurge: 0 } } })), []);
  });

  it('refuses names, numbers and rolling-update values as upstream', () => {
    const bad = { ...lws({ replicas: 1_000_001 }, { size: 0 }), metadata: { name: '1abc', namespace: 'default' } } as KObject;
    assert.deepEqual(texts(bad), [
      'metadata.name: Invalid value: "1abc": a DNS-1035 label must consist of lower case alphanumeric characters or \'-\', start with an alphabetic character, and end with an alphanumeric character (e.g. \'my-name\',  or \'abc-123\', regex used for validation is \'[a-z]([-a-z0-9]*[a-z0-9])?\')',
      'spec.replicas: Invalid value: 1000001: replicas must be equal or less than 1000000',
      'spec.leaderWorkerTemplate.size: Invalid value: 0: size must be equal or greater than 1',
    ]);
    assert.deepEqual(texts(lws({ rolloutStrategy: { rollingUpdateConfiguration: { maxUnavailable: '150%', maxSurge: 'lots', partition: -1 } } })), [
      `${ru}.maxUnavailable: Invalid value: "150%": must not be greater than 100%`,
      `${ru}.maxSurge: Invalid value: "lots": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`,
      `${ru}.partition: Invalid value: -1: must be greater than or equal to 0`,
      `${ru}.maxSurge: Invalid value: "lots": invalid value`,
    ]);
  });

  it('checks the sub-group policy and its annotation', () => {
    assert.deepEqual(texts(lws({}, { size: 5, subGroupPolicy: { subGroupSize: 2, subGroupPolicyType: 'LeaderExcluded' } })), []);
    assert.deepEqual(texts(lws({}, { size: 6, subGroupPolicy: { subGroupSize: 2, subGroupPolicyType: 'LeaderExcluded' } })), [
      'spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 2: size-1 must be divisible by subGroupSize when using LeaderExcluded',
    ]);
    assert.deepEqual(texts(lws({}, { size: 2, subGroupPolicy: { subGroupSize: 4 } })), [
      'spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 4: size or size - 1 must be divisible by subGroupSize',
      'spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 4: subGroupSize cannot be larger than size',
    ]);
    assert.deepEqual(texts(lws({}, {}, { 'leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology': 'zone' })), [
      'metadata.annotations.leaderworkerset.sigs.k8s.io/subgroup-exclusive-topology: Invalid value: "zone": cannot have subgroup-exclusive-topology without subGroupSize set',
    ]);
  });

  it('keeps the sub-group size on update', () => {
    const withSub = lws({}, { subGroupPolicy: { subGroupSize: 2 } });
    assert.deepEqual(texts(lws({}, { subGroupPolicy: { subGroupSize: 4 } }), withSub), ['spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 4: field is immutable']);
    assert.deepEqual(texts(lws({}), withSub), ['spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 2: cannot remove subGroupSize after enabled']);
    assert.deepEqual(texts(withSub, withSub), []);
  });
});
