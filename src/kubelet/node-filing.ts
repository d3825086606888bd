// The kubelets' index of pod keys (namespace/name) by the node each pod is bound to: one node per key, so filing a
// pod again or forgetting it touches one set.
export class NodeFiling {
  private readonly byNode = new Map<string, Set<string>>();
  private readonly nodeOfKey = new Map<string, string>();

  keysOn(node: string): Iterable<string> {
    return this.byNode.get(node) ?? [];
  }

  nodeOf(key: string): string | undefined {
    return this.nodeOfKey.get(key);
  }

  file(key: string, node: string): void {
    if (this.nodeOfKey.get(key) === node) return;
    this.unfile(key);
    let set = this.byNode.get(node);
    if (!set) this.byNode.set(node, (set = new Set()));
    set.add(key);
    this.nodeOfKey.set(key, node);
  }

  unfile(key: string): void {
    const node = this.nodeOfKey.get(key);
    if (node === undefined) return;
    this.nodeOfKey.delete(key);
    const set = this.byNode.get(node);
    set?.delete(key);
    if (set && !set.size) this.byNode.delete(node);
  }
}
