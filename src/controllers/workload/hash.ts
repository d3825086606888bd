// Stable short hashes of pod templates: FNV-1a 32-bit, rendered in the vowel-free alphabet upstream uses for
// pod-template-hash and ControllerRevision names, so names look like `web-7c5ddbdf54`.
const alphabet = 'bcdfghjklmnpqrstvwxz2456789';

export function fnv32a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i) & 0xff;
    h = Math.imul(h, 0x01000193) >>> 0;
    if (text.charCodeAt(i) > 0xff) {
      h ^= text.charCodeAt(i) >>> 8;
      h = Math.imul(h, 0x01000193) >>> 0;
    }
  }
  return h >>> 0;
}

/** Maps each character of the decimal hash to a safe character by its code, as upstream's SafeEncodeString does. */
export function safeEncode(n: number): string {
  return String(n).split('').map((d) => alphabet[d.charCodeAt(0) % alphabet.length]).join('');
}

/** JSON with object keys sorted, so equal objects hash equally. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The hash of a template plus an optional collision count, encoded (upstream ComputeHash). */
export function computeHash(template: unknown, collisionCount?: number): string {
  let text = canonicalJson(template);
  if (collisionCount !== undefined && collisionCount !== null) text += `#${collisionCount}`;
  return safeEncode(fnv32a(text));
}
