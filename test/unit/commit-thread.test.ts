// Group commit on the commit thread (a file store with `commitThread`): writes are read from memory at once and
// published to watchers only once the thread has committed them, in order; cold objects are read back from the file
// after their commit; compaction runs on the thread after the batches before it; close() commits what is still
// pending, so a store opened on the file afterwards has every write and the compaction.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import type { Change } from '../../src/storage/watch-hub.js';
import type { KObject } from '../../src/machinery/types.js';

const pod = (name: string): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
const event = (name: string): KObject => ({ apiVersion: 'v1', kind: 'Event', metadata: { name, namespace: 'default' }, reason: 'Scheduled' });

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), what);
}

test('writes are published once the commit thread has committed them; close commits the rest; a reopened store has it all', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-commit-thread-'));
  const path = join(dir, 'bonsai.db');
  try {
    const s = new SqliteStore({ path, commitThread: true });
    const seen: Change[] = [];
    s.hub.subscribe('*', (c) => seen.push(c));
    try {
      // Batches are committed inline until the thread is ready; wait for it so these go to the thread.
      s.create('core/pods', pod('warm-up'));
      await s.committed();
      await until(() => (s as unknown as { thread: { isReady(): boolean } }).thread.isReady(), 'the commit thread started');
      for (let i = 0; i < 50; i++) s.create('core/pods', pod(`p${i}`));
      s.create('core/events', event('e1'));
      assert.equal(s.get('core/pods', 'default', 'p49')?.metadata.name, 'p49', 'read from memory at once');
      assert.equal(s.hasPending(), true);
      const before = seen.length;
      await s.committed();
      assert.equal(s.hasPending(), false);
      assert.equal(seen.length - before, 51, 'every write published, once');
      assert.deepEqual(seen.slice(before).map((c) => c.rv), seen.slice(before).map((c) => c.rv).sort((a, b) => a - b), 'in revision order');
      assert.equal(s.publishedRevision(), s.revision());
      // The cold Event is read back from the file now.
      assert.equal(s.get('core/events', 'default', 'e1')?.reason, 'Scheduled');
      // A watch from an earlier revision replays committed changes from the file.
      const replayed: number[] = [];
      const w = s.watch('core/pods', 1, () => {});
      for (let page = w.replay(100); page.length; page = w.replay(100)) replayed.push(...page.map((c) => c.rv));
      w.stop();
      assert.ok(replayed.length >= 50, `replayed ${replayed.length}`);
      s.delete('core/pods', 'default', 'p0');
      const compacted = s.compact(0);
      assert.equal(compacted, s.revision());
      // Left pending at close: committed by close itself.
      s.create('core/pods', pod('last'));
    } finally {
      s.close();
    }
    const again = new SqliteStore({ path });
    try {
      assert.equal(again.get('core/pods', 'default', 'last')?.metadata.name, 'last');
      assert.equal(again.get('core/pods', 'default', 'p0'), undefined);
      assert.equal(again.list('core/pods').length, 51, 'warm-up, p1..p49 and last');
      assert.equal(again.compactedRevision(), s.compactedRevision(), 'the compaction was saved');
      assert.equal(again.revision(), s.revision());
    } finally {
      again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a store asking for its commit thread later commits inline until startBackground() starts it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-commit-later-'));
  const path = join(dir, 'bonsai.db');
  try {
    const s = new SqliteStore({ path, commitThread: 'later' });
    const thread = () => (s as unknown as { thread?: { isReady(): boolean } }).thread;
    try {
      s.create('core/pods', pod('early'));
      await s.committed();
      assert.equal(thread(), undefined, 'no thread before startBackground()');
      s.startBackground();
      s.startBackground();
      await until(() => thread()?.isReady() === true, 'the commit thread started');
      s.create('core/pods', pod('late'));
      await s.committed();
    } finally {
      s.close();
    }
    const again = new SqliteStore({ path });
    try {
      assert.deepEqual(['early', 'late'].map((n) => again.get('core/pods', 'default', n)?.metadata.name), ['early', 'late']);
    } finally {
      again.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
