// The shapes the in-process client hands out: resource references, changes, and read options.
import type { KObject } from '../machinery/types.js';
import type { ResourceDef } from '../registry/resource.js';

/**
 * Names a resource as `version/plural` for the core group (`'v1/pods'`) or `group/version/plural`
 * (`'apps/v1/replicasets'`), or is the ResourceDef itself. Any resource the registry serves, custom ones included.
 */
export type ResourceRef = string | ResourceDef;

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One committed change, as watchers and informers see it (the store's own change record, never copied). */
export interface Change {
  type: ChangeType;
  /** The storage key of the resource (`core/pods`, `apps/replicasets`). */
  resource: string;
  rv: number;
  object: KObject;
  /** For MODIFIED and DELETED: the state before the change, when known. */
  previous?: KObject;
}

export type ChangeListener = (change: Change) => void;

/**
 * Narrows a watch to objects whose indexed field reads `value` (or read it before the change). `of` must be the same
 * function for every watch on that field (a module-level constant): the store keeps one index per function.
 */
export interface WatchTrigger {
  of: (obj: KObject) => string | undefined;
  value: string;
}
