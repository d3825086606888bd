// VPA resourcePolicy: per-container and `*` policies, minAllowed/maxAllowed capping (uncappedTarget kept),
// controlledResources, controlledValues (RequestsOnly capped to the limit; RequestsAndLimits keeps the limit ratio),
// mode Off, and the admission step's annotations.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import { applyPolicy, containerOff, containerResourcesForPod, controlledResources, processForPod, renderRecommendation } from '../../src/addons/vpa/policy.js';
import { applyRecommendation } from '../../src/addons/vpa/admission.js';
import type { ContainerPolicy, Vpa } from '../../src/addons/vpa/types.js';

const Mi = 1024 * 1024;
const vpaWith = (policies: ContainerPolicy[], mode = 'Recreate', recs: Vpa['status'] = undefined): Vpa => ({
  metadata: { name: 'v', namespace: 'default' },
  spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, updatePolicy: { updateMode: mode as 'Recreate' }, resourcePolicy: { containerPolicies: policies } },
  status: recs,
});
const withRec = (target: Record<string, string>) => ({ recommendation: { containerRecommendations: [{ containerName: 'app', target, lowerBound: target, upperBound: target }] } });
const pod = (resources: Record<string, Record<string, string>>, extra: Array<{ name: string }> = []): Pod => ({
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'x', resources }, ...extra.map((c) => ({ ...c, image: 'x' }))] },
});

describe('VPA resourcePolicy', () => {
  it('a container policy wins over `*`; controlledResources and mode Off', () => {
    const v = vpaWith([{ containerName: '*', controlledResources: ['memory'] }, { containerName: 'sidecar', mode: 'Off' }]);
    assert.deepEqual(controlledResources(v, 'app'), ['memory']);
    assert.deepEqual(controlledResources(vpaWith([]), 'app'), ['cpu', 'memory']);
    assert.ok(containerOff(v, 'sidecar'));
    assert.ok(!containerOff(v, 'app'));
  });

  it('caps target and bounds to minAllowed/maxAllowed, keeping the uncapped target', () => {
    const v = vpaWith([{ containerName: 'app', minAllowed: { cpu: '200m' }, maxAllowed: { cpu: '1', memory: '500Mi' } }]);
    const r = applyPolicy(v, { containerName: 'app', target: { cpu: 1500, memory: 300 * Mi }, lowerBound: { cpu: 50, memory: 300 * Mi }, upperBound: { cpu: 4000, memory: 900 * Mi } });
    assert.deepEqual(renderRecommendation(r), {
      containerName: 'app',
      lowerBound: { cpu: '200m', memory: '300Mi' },
      target: { cpu: '1', memory: '300Mi' },
      uncappedTarget: { cpu: '1500m', memory: '300Mi' },
      upperBound: { cpu: '1', memory: '500Mi' },
    });
  });

  it('RequestsAndLimits keeps the limit-to-request ratio; a limit equal to the request follows it', () => {
    const v = vpaWith([], 'Recreate', withRec({ cpu: '500m', memory: '256Mi' }));
    const p = pod({ requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '200m', memory: '128Mi' } });
    const [r] = containerResourcesForPod(v, p, processForPod(v, p));
    assert.deepEqual(r!.requests, { cpu: 500, memory: 256 * Mi });
    assert.deepEqual(r!.limits, { cpu: 1000, memory: 256 * Mi });
  });

  it('RequestsOnly leaves limits and caps the target to the limit', () => {
    const v = vpaWith([{ containerName: 'app', controlledValues: 'RequestsOnly' }], 'Recreate', withRec({ cpu: '500m', memory: '256Mi' }));
    const p = pod({ requests: { cpu: '100m' }, limits: { cpu: '300m' } });
    const processed = processForPod(v, p);
    assert.deepEqual(processed.notes.get('app'), ['cpu capped to container limit']);
    const [r] = containerResourcesForPod(v, p, processed);
    assert.deepEqual(r!.requests, { cpu: 300, memory: 256 * Mi });
    assert.equal(r!.limits, undefined);
  });

  it('the admission step writes requests, limits and upstream annotations', () => {
    const v = vpaWith([{ containerName: 'app', maxAllowed: { cpu: '400m' } }], 'Initial', withRec({ cpu: '500m', memory: '256Mi' }));
    const p = pod({ requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m' } }, [{ name: 'log' }]);
    applyRecommendation(v, p);
    assert.deepEqual(p.spec!.containers[0].resources, { requests: { cpu: '400m', memory: '256Mi' }, limits: { cpu: '800m' } });
    assert.equal(p.metadata!.annotations!.vpaUpdates,
      'Pod resources updated by v: container 0: cpu capped to maxAllowed, memory: limit NOT set since originalLimit is nil or 0, cpu request, memory request, cpu limit');
    assert.equal(p.metadata!.annotations!.vpaObservedContainers, 'app, log');
    assert.deepEqual(p.spec!.containers[1].resources, undefined);
  });

  it('ignores hostile policy shapes', () => {
    const v = { metadata: { name: 'v' }, spec: { resourcePolicy: { containerPolicies: 'nope' } } } as unknown as Vpa;
    assert.deepEqual(controlledResources(v, 'app'), ['cpu', 'memory']);
    const w = vpaWith([{ containerName: 'app', minAllowed: JSON.parse('{"__proto__": "1", "cpu": "x"}') }]);
    assert.deepEqual(applyPolicy(w, { containerName: 'app', target: { cpu: 5 }, lowerBound: {}, upperBound: {} }).target, { cpu: 5 });
  });
});
