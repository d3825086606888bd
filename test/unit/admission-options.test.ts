// AdmissionRequest.options for each operation, and how a subresource of its own kind (a Scale) is presented to
// webhooks and policies: neither converted nor relabelled as its parent resource.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { operationOptions } from '../../src/admission/options.js';
import { fromMatchedVersion, toMatchedVersion } from '../../src/admission/webhook/review.js';
import { allResources } from '../../src/registry/resources/index.js';
import type { KObject } from '../../src/machinery/types.js';

describe('admission operation options', () => {
  it('names the options kind of each operation with only the fields the request set', () => {
    assert.deepEqual(operationOptions('CREATE', {}), { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
    assert.deepEqual(operationOptions('UPDATE', { dryRun: true, fieldManager: 'kubectl-edit' }),
      { kind: 'UpdateOptions', apiVersion: 'meta.k8s.io/v1', dryRun: ['All'], fieldManager: 'kubectl-edit' });
    assert.deepEqual(operationOptions('DELETE', { propagationPolicy: 'Foreground', gracePeriodSeconds: 0, preconditions: { uid: 'u' }, fieldManager: 'ignored' }),
      { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1', gracePeriodSeconds: 0, preconditions: { uid: 'u' }, propagationPolicy: 'Foreground' });
    assert.equal(operationOptions('CONNECT', {}), undefined);
  });
});

describe('matched version of a subresource object', () => {
  const deployments = allResources.find((d) => d.group === 'apps' && d.plural === 'deployments');
  assert.ok(deployments);
  const scale: KObject = { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 3 } };
  const scaleMatch = { def: deployments, resource: { group: 'apps', version: 'v1', resource: 'deployments' }, kind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } };

  it('keeps a Scale a Scale', () => {
    const seen = toMatchedVersion(scaleMatch, scale);
    assert.deepEqual(seen, scale);
    assert.notEqual(seen, scale, 'a copy: a webhook call may not change the original');
    assert.equal(fromMatchedVersion(scaleMatch, scale), scale);
  });

  it('still presents the resource itself in the matched version', () => {
    const match = { ...scaleMatch, kind: { group: 'apps', version: 'v1', kind: 'Deployment' } };
    const obj = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' }, spec: { replicas: 1 } } as KObject;
    assert.equal(toMatchedVersion(match, obj)?.kind, 'Deployment');
    assert.equal(toMatchedVersion(match, obj)?.apiVersion, 'apps/v1');
  });
});
