// Controller references: who controls an object, and the ownerReference a controller stamps on what it creates.
import type { KObject, OwnerReference } from '../../machinery/types.js';

/** The ownerReference with controller=true, if any. */
export function controllerRef(obj: KObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** An informer index value: the uid of the object's controller, or `orphan/<namespace>` when nothing controls it. */
export const controllerIndex = (obj: KObject): string => controllerRef(obj)?.uid ?? `orphan/${obj.metadata.namespace ?? ''}`;

/** Whether `obj` is controlled by `owner` (matched by uid). */
export function isControlledBy(obj: KObject, owner: KObject): boolean {
  return controllerRef(obj)?.uid === owner.metadata.uid;
}

/** The controller reference a workload controller puts on its dependents (controller and blockOwnerDeletion set). */
export function controllerRefTo(owner: KObject): OwnerReference {
  return {
    apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '',
    controller: true, blockOwnerDeletion: true,
  };
}
