// Reads answer with committed state only: while writes are being committed (group commit), a read waits for them
// (see server.ts). A GET of one object need not: when the object it reads is committed itself (its revision is one
// watchers were told about), the answer holds committed data already; so a read is not held up by a write load on
// other objects. A missing object still waits (its delete may be the write not yet committed).
import type { Registry } from '../registry/registry.js';
import { storageKey } from '../registry/resource.js';
import type { ObjectName } from '../storage/storage.js';
import type { RequestInfo } from './request-info.js';

const watchQuery = /[?&]watch=/;

/** The one object a GET reads (not a list, watch or subresource); undefined for every other request. */
export function objectRead(reg: Registry, info: RequestInfo, url: string): ObjectName | undefined {
  if (info.name === undefined || info.subresource !== undefined || info.watchPath || info.resource === undefined || watchQuery.test(url)) return undefined;
  const def = reg.find(info.group, info.version, info.resource);
  return def && { resource: storageKey(def), namespace: def.namespaced ? info.namespace ?? '' : '', name: info.name };
}

export function readsCommittedObject(reg: Registry, info: RequestInfo, url: string): boolean {
  const one = objectRead(reg, info, url);
  const obj = one && reg.getStored(one.resource, one.namespace, one.name);
  return obj !== undefined && Number(obj.metadata.resourceVersion) <= reg.store.publishedRevision();
}
