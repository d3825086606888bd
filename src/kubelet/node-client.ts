// The client as a node's kubelet writes through it: as system:node:NAME in system:nodes (one per node, made once).
import { nodeIdentity } from '../auth/identities.js';
import type { Client } from '../client/client.js';

export function nodeClient(client: Client, nodeName: string): Client {
  const id = nodeIdentity(nodeName);
  return client.as(id.user, id.component);
}
