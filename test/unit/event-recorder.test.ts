// The in-process EventRecorder: repeats of one Event (same object, type, reason, message, field path) aggregate into
// its count; anything different is a new Event; what it remembers is bounded (a forgotten repeat is a new Event).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { EventRecorder } from '../../src/client/event-recorder.js';
import type { KObject } from '../../src/machinery/types.js';

const pod = (name: string, uid: string): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', uid } });

test('the event recorder aggregates exact repeats only, and forgets the oldest objects past its bound', () => {
  const store = new SqliteStore({ path: ':memory:' });
  try {
    const reg = new Registry(store, allResources, new ManualClock(Date.UTC(2026, 0, 1)), createLogger('silent'));
    bootstrap(reg);
    const rec = new EventRecorder(reg, { component: 'kubelet', host: 'n1' });
    const events = () => reg.listStored('core/events', 'default') as Array<KObject & { count?: number; message?: string }>;
    const a = pod('a', 'uid-a');
    rec.event(a, 'Normal', 'Pulled', 'image present');
    rec.event(a, 'Normal', 'Pulled', 'image present');
    rec.event(a, 'Normal', 'Pulled', 'image present');
    assert.equal(events().length, 1);
    assert.equal(events()[0].count, 3);
    rec.event(a, 'Normal', 'Pulled', 'image present again');
    rec.event(a, 'Warning', 'Pulled', 'image present');
    rec.event(a, 'Normal', 'Pulled', 'image present', 'spec.containers{c}');
    rec.event(pod('b', 'uid-b'), 'Normal', 'Pulled', 'image present');
    assert.equal(events().length, 5, 'a different message, type, field path or object is a new Event');
    for (let i = 0; i < 4200; i++) rec.event(pod(`x${i}`, `uid-x${i}`), 'Normal', 'Scheduled', 'assigned');
    const before = events().length;
    rec.event(a, 'Normal', 'Pulled', 'image present');
    assert.equal(events().length, before + 1, 'the oldest object was forgotten: its repeat is a new Event');
    const last = pod(`x4199`, 'uid-x4199');
    rec.event(last, 'Normal', 'Scheduled', 'assigned');
    assert.equal(events().length, before + 1, 'a recent one still aggregates');
  } finally {
    store.close();
  }
});
