// The shapes the in-process client hands out: resource references, changes, and read options.
import type { KObject } from '../machinery/types.js';
import type { ResourceDef } from '../registry/resource.js';

/**
 * Names a resource as `version/plural` for the core group (`'v1/pods'`) or `group/version/plural`
 * (`'apps/v1/replicasets'`), or is the ResourceDef itself. Any resource the registry serves, custom ones included.
 */
export type ResourceRef = string | ResourceDef;

/** A served resource's declaration, as the client's `resource()` and `resources()` hand it out. */
export type { ResourceDef };

/** One committed change, as watchers and informers see it (the store's own change record, never copied). */
export type { Change, ChangeType, ChangeListener } from '../storage/watch-hub.js';

/** Narrows a watch to objects whose indexed field reads a value (the store keeps one index per field function). */
export type { Trigger as WatchTrigger } from '../storage/watch-hub.js';
