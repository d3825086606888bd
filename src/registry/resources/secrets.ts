// Secret rules: stringData is a write-only convenience. As upstream's v1 -> internal conversion does, its values are
// encoded into data (overriding keys data already has) on every create and update, and it is never stored.
import { isRecord, type KObject } from '../../machinery/types.js';
import type { ResourceDef } from '../resource.js';

function mergeStringData(obj: KObject): void {
  const stringData = obj.stringData;
  delete obj.stringData;
  if (!isRecord(stringData) || Object.keys(stringData).length === 0) return;
  const data = isRecord(obj.data) ? obj.data : {};
  // Object.fromEntries defines own properties, so a key such as "__proto__" stays an ordinary key.
  obj.data = Object.fromEntries([
    ...Object.entries(data),
    ...Object.entries(stringData).map(([k, v]) => [k, Buffer.from(typeof v === 'string' ? v : '', 'utf8').toString('base64')]),
  ]);
}

export const secretStrategy: Partial<ResourceDef> = {
  prepareCreate: (obj) => mergeStringData(obj),
  prepareUpdate: (obj) => mergeStringData(obj),
};
