// Discovery's storageVersionHash: upstream's digest of the storage version, so that clients (the storage version
// migrator, caches) see it change exactly when the stored group/version/kind changes.
import { createHash } from 'node:crypto';
import { storageApiVersion, type ResourceDef } from '../registry/resource.js';

const hashes = new WeakMap<ResourceDef, string>();

/** The first 8 bytes of the sha256 of `group/version/kind` (`/v1/Pod` for the core group), base64-encoded. */
export function storageVersionHashOf(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

/** The hash of the version a resource is stored as (events.k8s.io Events are stored as core v1 Events). */
export function storageVersionHash(def: ResourceDef): string {
  let h = hashes.get(def);
  if (h === undefined) {
    const apiVersion = storageApiVersion(def);
    const slash = apiVersion.indexOf('/');
    h = storageVersionHashOf(slash < 0 ? '' : apiVersion.slice(0, slash), apiVersion.slice(slash + 1), def.kind);
    hashes.set(def, h);
  }
  return h;
}
