// `--kubelets` (src/leader/kubelet-selection.ts): parsing, the stable name-hash shards, and the node filter.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { formatKubeletSelection, nodeFilterOf, parseKubeletSelection, shardOf } from '../../src/leader/index.js';
import type { KObject } from '../../src/machinery/types.js';

const node = (name: string, labels?: Record<string, string>): KObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels } });

describe('--kubelets', () => {
  it('parses leader, none, shards and selectors', () => {
    assert.deepEqual(parseKubeletSelection(undefined), { kind: 'leader' });
    assert.deepEqual(parseKubeletSelection('leader'), { kind: 'leader' });
    assert.deepEqual(parseKubeletSelection('none'), { kind: 'none' });
    assert.deepEqual(parseKubeletSelection('1/3'), { kind: 'shard', index: 1, count: 3 });
    assert.equal(formatKubeletSelection(parseKubeletSelection('pool in (gpu)')), 'pool in (gpu)');
    assert.equal(parseKubeletSelection('bonsai.dev/pool=worker').kind, 'selector');
    for (const bad of ['3/3', '0/0', '1/99999', 'a b c', '=x']) assert.throws(() => parseKubeletSelection(bad), Error, bad);
  });

  it('hashes names to the same shard every time, spread over the shards', () => {
    // FNV-1a: fixed values, whatever process computes them.
    assert.equal(shardOf('', 1_000_003), 0x811c9dc5 % 1_000_003);
    assert.equal(shardOf('bonsai-worker-1', 7), shardOf('bonsai-worker-1', 7));
    const counts = [0, 0, 0];
    for (let i = 1; i <= 3000; i++) counts[shardOf(`bonsai-worker-${i}`, 3)]++;
    for (const c of counts) assert.ok(c > 850 && c < 1150, `uneven shards: ${counts.join(' ')}`);
  });

  it('picks every node exactly once across the shards', () => {
    const filters = [0, 1, 2].map((i) => nodeFilterOf(parseKubeletSelection(`${i}/3`))!);
    for (let i = 1; i <= 200; i++) {
      const n = node(`n-${i}`);
      assert.equal(filters.filter((f) => f(n)).length, 1, `n-${i}`);
    }
  });

  it('filters by labels, none serves nothing, leader has no filter', () => {
    const gpu = nodeFilterOf(parseKubeletSelection('pool=gpu'))!;
    assert.equal(gpu(node('a', { pool: 'gpu' })), true);
    assert.equal(gpu(node('b', { pool: 'worker' })), false);
    assert.equal(gpu(node('c')), false);
    assert.equal(nodeFilterOf(parseKubeletSelection('none'))!(node('a')), false);
    assert.equal(nodeFilterOf(parseKubeletSelection('leader')), undefined);
  });
});
