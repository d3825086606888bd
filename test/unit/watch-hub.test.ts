// The hub: a listener that throws must not keep a change from the others or later changes; batches of changes
// end with the callbacks registered during them; watchers share each batch's encoded events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchHub, type Change } from '../../src/storage/watch-hub.js';
import { shapeKey, sharedEvent } from '../../src/api/watch-encoding.js';
import { allResources } from '../../src/registry/resources/index.js';
import type { KObject } from '../../src/machinery/types.js';

test('a throwing listener is reported and the others still get every change', () => {
  const hub = new WatchHub();
  const failures: string[] = [];
  hub.onListenerError = (err, change) => failures.push(`${(err as Error).message} ${change.object.metadata.name}`);
  const seen: string[] = [];
  hub.subscribe('core/pods', () => {
    throw new Error('boom');
  });
  hub.subscribe('core/pods', (c) => seen.push(`pods ${c.object.metadata.name}`));
  hub.subscribe('*', (c) => seen.push(`all ${c.object.metadata.name}`));
  const change = (name: string): Change => ({ type: 'ADDED', resource: 'core/pods', rv: 1, object: { metadata: { name } } });
  hub.publish(change('a'));
  hub.publish(change('b'));
  assert.deepEqual(seen, ['pods a', 'all a', 'pods b', 'all b']);
  assert.deepEqual(failures, ['boom a', 'boom b']);
});

test('a batch reaches every listener change by change, then each batch-end callback once', () => {
  const hub = new WatchHub();
  const log: string[] = [];
  const flushA = () => log.push('end A');
  hub.subscribe('core/pods', (c) => {
    log.push(`A ${c.object.metadata.name}`);
    hub.atBatchEnd(flushA);
  });
  hub.subscribe('core/pods', (c) => log.push(`B ${c.object.metadata.name}`));
  const change = (name: string, rv: number): Change => ({ type: 'ADDED', resource: 'core/pods', rv, object: { metadata: { name } } });
  hub.publishBatch([change('x', 1), change('y', 2)]);
  assert.deepEqual(log, ['A x', 'B x', 'A y', 'B y', 'end A']);
  log.length = 0;
  hub.publish(change('z', 3));
  assert.deepEqual(log, ['A z', 'B z', 'end A']);
  // Outside a batch a callback runs at once.
  log.length = 0;
  hub.atBatchEnd(() => log.push('now'));
  assert.deepEqual(log, ['now']);
});

test('watchers of the same shape share one encoded event per batch', () => {
  const hub = new WatchHub();
  const def = allResources.find((d) => d.group === '' && d.plural === 'configmaps')!;
  const shape = { def, version: 'v1', format: 'object' as const };
  const key = shapeKey(shape);
  const obj = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns', resourceVersion: '7' }, data: { k: 'v' } };
  const now = () => new Date(0);
  const seen: Buffer[] = [];
  for (let i = 0; i < 3; i++) hub.subscribe('core/configmaps', (c) => seen.push(sharedEvent(hub, shape, key, c.type, c.object, false, now)));
  hub.subscribe('core/configmaps', (c) => seen.push(sharedEvent(hub, shape, key, 'DELETED', c.object, false, now)));
  hub.publish({ type: 'ADDED', resource: 'core/configmaps', rv: 7, object: obj });
  assert.equal(seen.length, 4);
  assert.ok(seen[0] === seen[1] && seen[1] === seen[2], 'one buffer for the three ADDED watchers');
  assert.notEqual(seen[3], seen[0]);
  assert.deepEqual(JSON.parse(seen[0].toString()), { type: 'ADDED', object: obj });
  assert.deepEqual(JSON.parse(seen[3].toString()), { type: 'DELETED', object: obj });
  // The next batch encodes afresh: nothing is kept once a batch ends.
  hub.publish({ type: 'ADDED', resource: 'core/configmaps', rv: 7, object: obj });
  assert.notEqual(seen[4], seen[0]);
  assert.ok(seen[4].equals(seen[0]));
});

test('a triggered subscription gets only changes whose object or previous state has its value', () => {
  const hub = new WatchHub();
  const nodeOf = (o: KObject) => (o.spec as { nodeName?: string } | undefined)?.nodeName;
  const seen: string[] = [];
  const stopA = hub.subscribe('core/pods', (c) => seen.push(`a ${c.type} ${c.object.metadata.name}`), { of: nodeOf, value: 'node-a' });
  hub.subscribe('core/pods', (c) => seen.push(`unbound ${c.type} ${c.object.metadata.name}`), { of: nodeOf, value: '' });
  hub.subscribe('core/pods', (c) => seen.push(`all ${c.type} ${c.object.metadata.name}`));
  const pod = (name: string, nodeName?: string) => ({ metadata: { name }, spec: nodeName ? { nodeName } : {} });
  hub.publish({ type: 'ADDED', resource: 'core/pods', rv: 1, object: pod('p1') });
  hub.publish({ type: 'MODIFIED', resource: 'core/pods', rv: 2, object: pod('p1', 'node-a'), previous: pod('p1') });
  hub.publish({ type: 'ADDED', resource: 'core/pods', rv: 3, object: pod('p2', 'node-b') });
  hub.publish({ type: 'DELETED', resource: 'core/pods', rv: 4, object: pod('p1', 'node-a'), previous: pod('p1', 'node-a') });
  assert.deepEqual(seen, [
    'all ADDED p1', 'unbound ADDED p1',
    'all MODIFIED p1', 'a MODIFIED p1', 'unbound MODIFIED p1',
    'all ADDED p2',
    'all DELETED p1', 'a DELETED p1',
  ]);
  assert.equal(hub.count(), 3);
  stopA();
  assert.equal(hub.count(), 2);
});
