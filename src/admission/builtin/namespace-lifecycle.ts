// NamespaceLifecycle, as kube-apiserver's plugin: nothing is created in a namespace that does not exist or is being
// terminated, and the namespaces the system needs can never be deleted.
import { forbidden, notFound } from '../../machinery/errors.js';
import type { AdmissionPlugin } from '../types.js';

/** Namespaces no one may delete. */
const immortal = new Set(['default', 'kube-system', 'kube-public']);

export const namespaceLifecycle: AdmissionPlugin = {
  name: 'NamespaceLifecycle',
  mutate(a) {
    if (a.operation === 'DELETE' && a.def.group === '' && a.def.plural === 'namespaces' && immortal.has(a.name)) {
      throw forbidden(`namespaces "${a.name}" is forbidden: this namespace may not be deleted`, { name: a.name, kind: 'namespaces' });
    }
    if (a.operation !== 'CREATE' || !a.def.namespaced) return;
    const ns = a.registry.getStored('core/namespaces', '', a.namespace);
    if (!ns) throw notFound({ group: '', resource: 'namespaces' }, a.namespace);
    if ((ns.status as { phase?: string } | undefined)?.phase !== 'Terminating') return;
    const message = `unable to create new content in namespace ${a.namespace} because it is being terminated`;
    throw forbidden(`${a.def.plural}${a.def.group ? `.${a.def.group}` : ''} is forbidden: ${message}`, {
      kind: a.def.plural, group: a.def.group || undefined,
      causes: [{ reason: 'NamespaceTerminating', message, field: 'metadata.namespace' }],
    });
  },
};
