// The in-process event recorder aggregates repeats into count/series, visible through both event APIs.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBonsai, type Bonsai } from '../../src/main.js';
import { testStorage } from './http.js';
import { EventRecorder } from '../../src/client/event-recorder.js';

let bonsai: Bonsai;
let storage: Awaited<ReturnType<typeof testStorage>> | undefined;
before(async () => {
  storage = await testStorage();
  bonsai = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', ...storage.options });
});
after(async () => {
  await bonsai.close();
  await storage?.stop();
});

it('aggregates repeated events and serves them as core/v1 and events.k8s.io/v1', async () => {
  const reg = bonsai.registry;
  const cm = await reg.create(reg.find('', 'v1', 'configmaps')!, 'default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'noisy' } });
  const rec = new EventRecorder(reg, { component: 'test-controller' });
  rec.event(cm, 'Warning', 'Flapping', 'it flapped');
  rec.event(cm, 'Warning', 'Flapping', 'it flapped');
  rec.event(cm, 'Warning', 'Flapping', 'it flapped');
  rec.event(cm, 'Normal', 'Calm', 'all quiet');

  const core = await (await fetch(`${bonsai.url}/api/v1/namespaces/default/events?fieldSelector=involvedObject.name=noisy,reason=Flapping`)).json() as { items: Array<Record<string, any>> };
  assert.equal(core.items.length, 1);
  assert.equal(core.items[0].count, 3);
  assert.equal(core.items[0].type, 'Warning');
  assert.equal(core.items[0].involvedObject.uid, cm.metadata.uid);
  assert.equal(core.items[0].source.component, 'test-controller');

  const v1 = await (await fetch(`${bonsai.url}/apis/events.k8s.io/v1/namespaces/default/events/${core.items[0].metadata.name}`)).json() as Record<string, any>;
  assert.equal(v1.apiVersion, 'events.k8s.io/v1');
  assert.equal(v1.note, 'it flapped');
  assert.equal(v1.regarding.name, 'noisy');
  assert.equal(v1.series.count, 3);
  assert.equal(v1.deprecatedCount, 3);
  assert.equal(v1.reportingController, 'test-controller');

  const all = await (await fetch(`${bonsai.url}/api/v1/namespaces/default/events?fieldSelector=involvedObject.uid=${cm.metadata.uid}`)).json() as { items: unknown[] };
  assert.equal(all.items.length, 2);
});
