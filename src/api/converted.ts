// Reads and writes of custom resources whose CRD converts by webhook: objects are converted (awaited) before they
// are served in another version than the stored one, and request bodies before they are written. Every other kind
// keeps the synchronous path (`served`/`toStorage` in output.ts); only these calls pay for a round trip.
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/resource.js';
import { convertByWebhook, needsConversion } from '../apiextensions/conversion-webhook.js';

export { needsConversion };

/** Stored objects as `version` of `def` (their read defaults applied first, as upstream decodes before converting). */
export function convertedForRead(reg: Registry, def: ResourceDef, version: string, stored: readonly KObject[], warnings: string[], list = false): Promise<KObject[]> {
  const read = def.onRead ? stored.map((o) => def.onRead!(o)) : stored;
  return convertByWebhook(reg, def, read, version, warnings, list);
}

/** A request body in `version` (left there by toStorage) converted to the storage version. */
export async function convertedForWrite(reg: Registry, def: ResourceDef, obj: KObject, warnings: string[]): Promise<KObject> {
  const [out] = await convertByWebhook(reg, def, [obj], def.version, warnings);
  return out;
}
