// The registry as a node's kubelet writes to it: as system:node:NAME in system:nodes (one view per node, made once).
import { nodeIdentity } from '../auth/identities.js';
import type { Registry } from '../registry/registry.js';

const views = new WeakMap<Registry, Map<string, Registry>>();

export function nodeRegistry(reg: Registry, nodeName: string): Registry {
  let byNode = views.get(reg);
  if (!byNode) views.set(reg, (byNode = new Map()));
  let view = byNode.get(nodeName);
  if (!view) {
    const id = nodeIdentity(nodeName);
    byNode.set(nodeName, (view = reg.as(id.user, id.component)));
  }
  return view;
}
