// Storage.storedText on SQLite: the text a list sends for a stored object instead of serializing it again. Byte for
// byte JSON.stringify of the object, whether the object was just written, committed, parsed back after a restart,
// cold (an Event), or replaced since; nothing once its revision is compacted away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import type { KObject } from '../../src/machinery/types.js';

const pod = (name: string, note: string): KObject => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' }, annotations: { note } },
  spec: { nodeName: 'node-1', containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.10', env: [{ name: 'A', value: note }] }] },
});
const notes = ['plain', 'ключ 😀 漢字', 'quote " back \\ nul \u0000 \u2028', 'lone \ud800 surrogate', ''];

test('a stored object\'s text is its JSON.stringify: written, committed, after a restart, cold, replaced', () => {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-text-'));
  const path = join(dir, 'bonsai.db');
  try {
    let s = new SqliteStore({ path });
    for (let i = 0; i < 50; i++) s.create('core/pods', pod(`p-${String(i).padStart(2, '0')}`, notes[i % notes.length].repeat(i)));
    s.create('core/events', { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, message: 'm' });
    for (const o of s.list('core/pods')) assert.equal(s.storedText('core/pods', o), JSON.stringify(o), 'pending');
    s.flush();
    const committed = s.list('core/pods');
    for (const o of committed) assert.equal(s.storedText('core/pods', o), JSON.stringify(o), 'committed');
    const old = committed[3];
    s.update('core/pods', { ...old, metadata: { ...old.metadata, labels: { app: 'changed' } } });
    s.flush();
    assert.equal(s.storedText('core/pods', old), JSON.stringify(old), 'replaced, not compacted');
    assert.match(s.storedText('core/pods', s.get('core/pods', 'default', old.metadata.name!)!) ?? '', /"changed"/);
    s.compact(0);
    assert.equal(s.storedText('core/pods', old), undefined, 'compacted away');
    const ev = s.get('core/events', 'default', 'e')!;
    assert.equal(s.storedText('core/events', ev), JSON.stringify(ev), 'cold: its own text');
    s.close();

    s = new SqliteStore({ path });
    const again = s.list('core/pods');
    assert.equal(again.length, 50);
    for (const o of again) assert.equal(s.storedText('core/pods', o), JSON.stringify(o), 'parsed after a restart');
    s.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
