// Every active namespace gets a `default` ServiceAccount (keys are namespaces: `/<name>`).
import { keyFor, splitKey } from '../machinery/object-key.js';
import { defineController } from './runtime/index.js';

export const serviceAccountController = defineController({
  name: 'serviceaccount',
  for: { resource: 'v1/namespaces', when: (c) => c.type !== 'DELETED' },
  watches: [{ resource: 'v1/serviceaccounts', when: (c) => c.type === 'DELETED', map: (c) => [keyFor('', c.object.metadata.namespace)] }],
  async reconcile(key, { client }): Promise<void> {
    const { name: namespace } = splitKey(key);
    const ns = client.get('v1/namespaces', '', namespace);
    if (!ns || ns.metadata.deletionTimestamp) return;
    if (client.get('v1/serviceaccounts', namespace, 'default')) return;
    try {
      await client.create('v1/serviceaccounts', namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } });
    } catch {
      /* created meanwhile or namespace terminating */
    }
  },
});
