// Namespace rules: the metadata.name label and lifecycle phase.
import type { Namespace } from '../../generated/k8s/core/v1.js';
import type { KObject } from '../../machinery/types.js';
import type { ResourceDef } from '../resource.js';
import { validateNamespace } from '../validation/core.js';

function nameLabel(obj: KObject): void {
  const name = obj.metadata.name;
  if (name) obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': name };
}

/** The finalize subresource writes spec.finalizers and nothing else (as upstream's finalize strategy). */
function finalized(cur: KObject, request: KObject): KObject {
  const finalizers = (request as Namespace).spec?.finalizers ?? [];
  return { ...cur, metadata: { ...cur.metadata }, spec: { ...(cur.spec as object), finalizers: [...finalizers] } };
}

export const namespaceStrategy: Partial<ResourceDef> = {
  partialWrites: { finalize: { merge: finalized, validate: (obj) => validateNamespace(obj), undefaulted: true } },
  prepareCreate(obj) {
    nameLabel(obj);
    const ns = obj as Namespace;
    ns.spec = { finalizers: ns.spec?.finalizers ?? ['kubernetes'] };
    ns.status = { phase: 'Active' };
  },
  prepareUpdate(obj, old) {
    nameLabel(obj);
    // spec.finalizers change only through the finalize subresource.
    (obj).spec = (old).spec;
  },
};
