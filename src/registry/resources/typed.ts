// Defaulters are written against the generated kind types; a def's `defaults` hook takes the stored object.
import type { KObject } from '../../machinery/types.js';

/** A defaulter of a kind's typed view, as the def's `defaults` hook. */
export const typedDefaults = <T>(fn: (obj: T) => void) => (obj: KObject): void => fn(obj as T);
