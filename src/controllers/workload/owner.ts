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

/** `namespace/name`, the work-queue key of a namespaced object. */
export const keyOf = (obj: KObject): string => `${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;

/** Splits a `namespace/name` key. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
