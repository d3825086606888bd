// Namespace rules: the metadata.name label and lifecycle phase.
import type { Namespace } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../../machinery/types.js';
import type { ResourceDef } from '../resource.js';

function nameLabel(obj: KObject): void {
  const name = obj.metadata.name;
  if (name) obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': name };
}

export const namespaceStrategy: Partial<ResourceDef> = {
  prepareCreate(obj) {
    nameLabel(obj);
    const ns = obj as unknown as Namespace;
    ns.spec = { finalizers: ns.spec?.finalizers ?? ['kubernetes'] };
    ns.status = { phase: 'Active' };
  },
  prepareUpdate(obj, old) {
    nameLabel(obj);
    // spec.finalizers change only through the finalize subresource.
    (obj as unknown as Namespace).spec = (old as unknown as Namespace).spec;
  },
};
