// What service account token authentication reads of the cluster: the live objects a token names and the time.
import type { KObject } from '../../machinery/types.js';

/** Reads the live objects a token names. */
export interface ObjectLookup {
  get(resource: 'serviceaccounts' | 'secrets' | 'pods' | 'nodes', namespace: string, name: string): KObject | undefined;
  /** Seconds since the epoch, on the cluster's clock. */
  now(): number;
  /** Records that a legacy Secret token was used today (upstream's last-used label). */
  markLegacyTokenUsed?(secret: KObject): void;
}
