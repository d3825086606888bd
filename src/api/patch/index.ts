// The patch engines: RFC 6902 JSON patch, RFC 7386 merge patch, strategic merge patch and server-side apply.
import { getOwn } from '../../util/own.js';

export { applyJsonPatch } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic.js';
export { applyServerSideApply, type ApplyOptions } from './apply.js';

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const TYPES: Record<string, PatchType> = {
  'application/json-patch+json': 'json',
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/apply-patch+yaml': 'apply',
};

/** The patch engine for a request Content-Type (parameters such as charset are ignored). */
export function patchTypeOf(contentType: string): PatchType | undefined {
  const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
  // An own key only: `constructor` or `__proto__` names no patch type.
  return getOwn(TYPES, media) as PatchType | undefined;
}
