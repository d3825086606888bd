// An index of pod keys (namespace/name) by the node they are bound to, kept current from the pod change feed.
import type { Registry } from '../registry/registry.js';
import type { KObject } from '../machinery/types.js';

const nodeOf = (o: KObject | undefined) => (o?.spec as { nodeName?: string } | undefined)?.nodeName ?? '';
const keyOf = (o: KObject) => `${o.metadata.namespace}/${o.metadata.name}`;

export class PodsByNode {
  private readonly byNode = new Map<string, Set<string>>();
  private readonly unsubscribe: () => void;

  /** `onChange` sees every pod change after the index has taken it in. */
  constructor(private readonly reg: Registry, onChange?: (pod: KObject, type: 'ADDED' | 'MODIFIED' | 'DELETED', previous: KObject | undefined) => void) {
    for (const p of reg.store.list('core/pods')) this.add(nodeOf(p), keyOf(p));
    this.unsubscribe = reg.store.hub.subscribe('core/pods', (c) => {
      const key = keyOf(c.object);
      const before = nodeOf(c.previous);
      const after = c.type === 'DELETED' ? '' : nodeOf(c.object);
      if (before !== after || c.type !== 'MODIFIED') {
        if (c.type !== 'ADDED') this.remove(before || nodeOf(c.object), key);
        if (after) this.add(after, key);
      }
      onChange?.(c.object, c.type, c.previous);
    });
  }

  private add(node: string, key: string): void {
    if (!node) return;
    let s = this.byNode.get(node);
    if (!s) this.byNode.set(node, (s = new Set()));
    s.add(key);
  }

  private remove(node: string, key: string): void {
    const s = this.byNode.get(node);
    if (!s) return;
    s.delete(key);
    if (!s.size) this.byNode.delete(node);
  }

  /** The current pods bound to a node. */
  pods(node: string): KObject[] {
    const out: KObject[] = [];
    for (const key of this.byNode.get(node) ?? []) {
      const i = key.indexOf('/');
      const p = this.reg.store.get('core/pods', key.slice(0, i), key.slice(i + 1));
      if (p && nodeOf(p) === node) out.push(p);
    }
    return out;
  }

  /** Names of nodes that have pods bound to them. */
  nodes(): string[] {
    return [...this.byNode.keys()];
  }

  stop(): void {
    this.unsubscribe();
  }
}
