// `--kubelets`: which simulated nodes this process runs the kubelets of.
//   leader (default)  all nodes, while this process leads (the `bonsai-kubelets` Lease)
//   none              none (an API-only replica)
//   I/N               shard I of N (0 <= I < N): nodes whose name hashes to I, whether this process leads or not
//   <selector>        nodes whose labels match the label selector, whether this process leads or not
// Shards and selectors never depend on the election: the processes split the nodes between them, and each node is
// served by whichever process its name (or labels) picks. Shard by name is stable; a selector should name labels
// that do not change (a pool or zone label), or a node may briefly be served by two processes while they both
// see the change.
import { matchesSelector, parseLabelSelector, type Selector } from '../machinery/labels.js';
import type { KObject } from '../machinery/types.js';

export type KubeletSelection =
  | { kind: 'leader' }
  | { kind: 'none' }
  | { kind: 'shard'; index: number; count: number }
  | { kind: 'selector'; selector: Selector; text: string };

const maxShards = 4096;
const shardRe = /^(\d+)\/(\d+)$/;

/** Parses `--kubelets`; throws an Error whose message says what is wrong. */
export function parseKubeletSelection(text: string | undefined): KubeletSelection {
  const s = (text ?? 'leader').trim();
  if (s === '' || s === 'leader') return { kind: 'leader' };
  if (s === 'none') return { kind: 'none' };
  const shard = shardRe.exec(s);
  if (shard) {
    const index = Number(shard[1]);
    const count = Number(shard[2]);
    if (count < 1 || count > maxShards || index >= count) throw new Error(`shard ${s}: want I/N with 0 <= I < N <= ${maxShards}`);
    return { kind: 'shard', index, count };
  }
  let selector: Selector;
  try {
    selector = parseLabelSelector(s);
  } catch (e) {
    throw new Error(`not leader, none, a shard I/N or a label selector: ${e instanceof Error ? e.message : String(e)}`);
  }
  return { kind: 'selector', selector, text: s };
}

/** FNV-1a (32 bits) of the name's UTF-16 code units: the same shard in every process and every run. */
export function shardOf(name: string, count: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) % count;
}

/** Whether this process serves a node: undefined means every node (leader mode), a function picks. */
export function nodeFilterOf(sel: KubeletSelection): ((node: KObject) => boolean) | undefined {
  switch (sel.kind) {
    case 'leader':
      return undefined;
    case 'none':
      return () => false;
    case 'shard':
      return (node) => shardOf(node.metadata.name ?? '', sel.count) === sel.index;
    case 'selector':
      return (node) => matchesSelector(sel.selector, node.metadata.labels);
  }
}

/** The selection as `--kubelets` writes it. */
export function formatKubeletSelection(sel: KubeletSelection): string {
  return sel.kind === 'shard' ? `${sel.index}/${sel.count}` : sel.kind === 'selector' ? sel.text : sel.kind;
}
