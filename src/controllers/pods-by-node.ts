// A pod informer indexed by the node each pod is bound to (index `node`).
import type { Client } from '../client/client.js';
import type { Informer } from '../client/informer.js';
import type { KObject } from '../machinery/types.js';

export const byNode = 'node';

const nodeOf = (o: KObject) => (o.spec as { nodeName?: string } | undefined)?.nodeName;

export function podsByNode(client: Client): Informer {
  return client.informer('v1/pods', { indexes: { [byNode]: nodeOf } });
}
