// One stored object, several API versions: core/v1 and events.k8s.io/v1 Events, autoscaling/v1 and v2 HPAs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useBonsai } from './http.js';

describe('HTTP semantics: version views of shared objects', () => {
  const { req } = useBonsai();

  it('serves core/v1 events through events.k8s.io/v1', async () => {
    const ev = {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'web.1' },
      involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', apiVersion: 'v1' },
      reason: 'Started', message: 'Started container c', type: 'Normal', source: { component: 'kubelet' },
      firstTimestamp: '2025-01-01T00:00:00Z', lastTimestamp: '2025-01-01T00:00:00Z', count: 1,
    };
    const c = await req('POST', '/api/v1/namespaces/default/events', ev);
    assert.equal(c.status, 201, c.text);
    const g = await req('GET', '/apis/events.k8s.io/v1/namespaces/default/events/web.1');
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.apiVersion, 'events.k8s.io/v1');
    assert.equal(g.body.kind, 'Event');
    assert.equal(g.body.note, 'Started container c');
    assert.equal(g.body.reason, 'Started');
    assert.equal(g.body.regarding.name, 'web');
    assert.equal(g.body.regarding.kind, 'Pod');
    assert.equal(g.body.metadata.uid, c.body.metadata.uid);
    const l = await req('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
    assert.ok(l.body.items.some((e: { note?: string }) => e.note === 'Started container c'));
    assert.equal(l.body.kind, 'EventList');
    assert.equal(l.body.apiVersion, 'events.k8s.io/v1');
  });

  it('serves events.k8s.io/v1 events through core/v1', async () => {
    const c = await req('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web.2' }, eventTime: '2025-01-01T00:00:00.000000Z',
      reportingController: 'example.com/ctl', reportingInstance: 'ctl-1', action: 'Scaling', reason: 'Scaled', type: 'Normal',
      regarding: { kind: 'Deployment', name: 'web', namespace: 'default', apiVersion: 'apps/v1' }, note: 'Scaled up',
    });
    assert.equal(c.status, 201, c.text);
    assert.equal(c.body.note, 'Scaled up');
    const g = await req('GET', '/api/v1/namespaces/default/events/web.2');
    assert.equal(g.status, 200, g.text);
    assert.equal(g.body.apiVersion, 'v1');
    assert.equal(g.body.message, 'Scaled up');
    assert.equal(g.body.involvedObject.kind, 'Deployment');
    assert.equal(g.body.reportingComponent, 'example.com/ctl');
  });

  it('serves the same HorizontalPodAutoscaler as autoscaling/v1 and v2', async () => {
    const hpa = {
      apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'web' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' }, minReplicas: 1, maxReplicas: 5,
        metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }],
      },
    };
    const c = await req('POST', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers', hpa);
    assert.equal(c.status, 201, c.text);
    const v1 = await req('GET', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web');
    assert.equal(v1.status, 200, v1.text);
    assert.equal(v1.body.apiVersion, 'autoscaling/v1');
    assert.equal(v1.body.spec.targetCPUUtilizationPercentage, 70);
    assert.equal(v1.body.spec.maxReplicas, 5);
    assert.equal(v1.body.metadata.uid, c.body.metadata.uid);

    const c1 = await req('POST', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers', {
      apiVersion: 'autoscaling/v1', kind: 'HorizontalPodAutoscaler', metadata: { name: 'api' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' }, maxReplicas: 3, targetCPUUtilizationPercentage: 50 },
    });
    assert.equal(c1.status, 201, c1.text);
    const v2 = await req('GET', '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/api');
    assert.equal(v2.status, 200);
    assert.equal(v2.body.apiVersion, 'autoscaling/v2');
    assert.deepEqual(v2.body.spec.metrics, [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }]);
    const l1 = await req('GET', '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers');
    assert.deepEqual(l1.body.items.map((h: { metadata: { name: string } }) => h.metadata.name), ['api', 'web']);
    assert.ok(l1.body.items.every((h: { apiVersion: string }) => h.apiVersion === 'autoscaling/v1'));
  });
});
