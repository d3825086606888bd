// A listener that throws must not keep a change from the other listeners (controllers, watches) or later changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WatchHub, type Change } from '../../src/storage/watch-hub.js';

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
