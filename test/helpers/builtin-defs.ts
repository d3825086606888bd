// Tests reach a built-in kind's hooks through its def, as the write pipeline does.
import type { GroupVersionKind, KObject } from '../../src/machinery/types.js';
import type { FieldError } from '../../src/machinery/errors.js';
import type { ResourceDef } from '../../src/registry/resource.js';
import { allResources } from '../../src/registry/resources/index.js';
import { applyDefaults, objectErrors } from '../../src/registry/write.js';

/** A kind as tests name it (the version, when given, is the storage version's: hooks take stored objects). */
type Kind = Pick<GroupVersionKind, 'group' | 'kind'> & { version?: string };

/** The built-in def of `group`/`kind` (the storage def, not a shared-storage view); throws when none is served. */
export function builtinDef(group: string, kind: string): ResourceDef {
  const def = allResources.find((d) => d.group === group && d.kind === kind);
  if (!def) throw new Error(`no built-in def for ${group}/${kind}`);
  return def;
}

/** The built-in def serving `group`/`plural`, if any. */
export function builtinDefOf(group: string, plural: string): ResourceDef | undefined {
  return allResources.find((d) => d.group === group && d.plural === plural);
}

/** What the write pipeline's defaulting does to an object of `gvk`. */
export function defaultKind(gvk: Kind, obj: KObject): void {
  applyDefaults(builtinDef(gvk.group, gvk.kind), obj);
}

/** What the write pipeline's validation reports for an object of `gvk` (`old` on updates). */
export function validateKind(gvk: Kind, obj: KObject, old?: KObject): FieldError[] {
  return objectErrors(builtinDef(gvk.group, gvk.kind), obj, old);
}
