// The client as a node's kubelet writes through it: as system:node:NAME in system:nodes (one per node, made once).
import { nodeIdentity } from '../auth/identities.js';
import type { Client } from '../client/client.js';

const byClient = new WeakMap<Client, Map<string, Client>>();

export function nodeClient(client: Client, nodeName: string): Client {
  let byNode = byClient.get(client);
  if (!byNode) byClient.set(client, (byNode = new Map()));
  let c = byNode.get(nodeName);
  if (!c) {
    const id = nodeIdentity(nodeName);
    byNode.set(nodeName, (c = client.as(id.user, id.component)));
  }
  return c;
}
