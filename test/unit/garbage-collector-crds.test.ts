// The garbage collector follows resources served after it started: a CRD established later joins its graph, so a
// custom resource's dependents go with it and a custom resource whose owner goes is collected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai } from '../../src/main.js';
import { clientFor } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';
import { until } from './jobset-helpers.js';

const crd: KObject = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.gc.example.com' },
  spec: {
    group: 'gc.example.com', scope: 'Namespaced', names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};
const widgets = 'gc.example.com/v1/widgets';

test('a CRD established after the collector started: its objects own and are owned', async () => {
  const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent' });
  try {
    const client = clientFor(b.registry);
    await client.resource('apiextensions.k8s.io/v1/customresourcedefinitions')?.load?.();
    await client.create('apiextensions.k8s.io/v1/customresourcedefinitions', '', crd);
    await until(() => !!client.resource(widgets), 10_000, 'the CRD established');
    const ref = (o: KObject) => [{ apiVersion: o.apiVersion ?? '', kind: o.kind ?? '', name: o.metadata.name ?? '', uid: o.metadata.uid ?? '' }];

    const owner = await client.create(widgets, 'default', { apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'owner' } });
    await client.create('v1/configmaps', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'of-widget', ownerReferences: ref(owner) } });
    const cm = await client.create('v1/configmaps', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owns-widget' } });
    await client.create(widgets, 'default', { apiVersion: 'gc.example.com/v1', kind: 'Widget', metadata: { name: 'of-configmap', ownerReferences: ref(cm) } });
    // A later object whose owner never existed: once it is collected, the collector has processed the ones before.
    await client.create('v1/configmaps', 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sentinel', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'none', uid: 'no-such-uid' }] } });
    await until(() => !client.get('v1/configmaps', 'default', 'sentinel'), 10_000, 'the sentinel collected');
    assert.ok(client.get('v1/configmaps', 'default', 'of-widget'), 'a dependent of a live custom resource stays');
    assert.ok(client.get(widgets, 'default', 'of-configmap'), 'a custom resource with a live owner stays');
    await client.delete(widgets, 'default', 'owner');
    await client.delete('v1/configmaps', 'default', 'owns-widget');
    await until(() => !client.get('v1/configmaps', 'default', 'of-widget'), 10_000, 'the custom resource\'s dependent collected');
    await until(() => !client.get(widgets, 'default', 'of-configmap'), 10_000, 'the custom resource whose owner went collected');
  } finally {
    await b.close();
  }
});
