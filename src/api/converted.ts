// Reads and writes of custom resources whose CRD converts by webhook: objects are converted (awaited) before they
// are served in another version than the stored one, and request bodies before they are written. Every other kind
// keeps the synchronous path (`served`/`toStorage` in output.ts); only these calls pay for a round trip.
import type { KObject } from '../machinery/types.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceDef } from '../registry/resource.js';
import { convertByWebhook, needsConversion } from '../apiextensions/conversion-webhook.js';

export { needsConversion };

/**
 * Stored objects as `version` of `def` (their read defaults applied first, as upstream decodes before converting).
 * Without `warnings`, what would be warned is logged.
 */
export function convertedForRead(reg: Registry, def: ResourceDef, version: string, stored: readonly KObject[], warnings: string[] | undefined, list = false): Promise<KObject[]> {
  const read = def.onRead ? stored.map((o) => def.onRead!(o)) : stored;
  return convertByWebhook(reg, def, read, version, warnings, list);
}

/** A request body in `version` (left there by toStorage) converted to the storage version. */
export async function convertedForWrite(reg: Registry, def: ResourceDef, obj: KObject, warnings: string[]): Promise<KObject> {
  const [out] = await convertByWebhook(reg, def, [obj], def.version, warnings);
  return out;
}

/** Conversions of watch events under way, per stored object and version: watchers sent the same event share one call. */
const eventConversions = new WeakMap<KObject, Map<string, Promise<KObject>>>();

/**
 * One watch event's object as `version` of `def`, by its own ConversionReview (upstream converts each event as it
 * encodes it). Watchers that ask for the same object while its conversion is under way share it; nothing is kept
 * once it settles, so a later watch sees the webhook as it is then.
 */
export function convertedEvent(reg: Registry, def: ResourceDef, version: string, stored: KObject): Promise<KObject> {
  let byVersion = eventConversions.get(stored);
  const running = byVersion?.get(version);
  if (running) return running;
  const p = convertedForRead(reg, def, version, [stored], undefined).then(([c]) => c);
  if (!byVersion) eventConversions.set(stored, (byVersion = new Map()));
  const versions = byVersion;
  versions.set(version, p);
  const forget = () => {
    versions.delete(version);
  };
  p.then(forget, forget);
  return p;
}
