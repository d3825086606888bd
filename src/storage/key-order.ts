// Reads over a resource's keys (`namespace/name`) kept in sorted order: a namespace's slice and a page after a key,
// found by binary search, so a list or a page costs what it returns, not the size of the resource.

/** The first index whose key is >= `k` (or > `k` when `strict`). */
export function lowerBound(keys: readonly string[], k: string, strict = false): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strict ? keys[mid] <= k : keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The objects of one namespace (all when undefined), in key order. */
export function listSorted<T>(keys: readonly string[], get: (key: string) => T, namespace?: string): T[] {
  if (namespace === undefined) return keys.map(get);
  const prefix = `${namespace}/`;
  const out: T[] = [];
  for (let i = lowerBound(keys, prefix); i < keys.length && keys[i].startsWith(prefix); i++) out.push(get(keys[i]));
  return out;
}

/**
 * Visits objects in key order from the first key after `after` (from the start when ''), within `namespace` when
 * given, until `visit` returns false; returns how many objects were left unvisited.
 */
export function scanSorted<T>(keys: readonly string[], get: (key: string) => T, namespace: string | undefined, after: string, visit: (obj: T, key: string) => boolean): number {
  // A namespace's keys are those from `ns/` up to `ns0` ('0' follows '/').
  const end = namespace === undefined ? keys.length : lowerBound(keys, `${namespace}0`);
  let i = Math.max(namespace === undefined ? 0 : lowerBound(keys, `${namespace}/`), after ? lowerBound(keys, after, true) : 0);
  for (; i < end; i++) if (!visit(get(keys[i]), keys[i])) return end - i;
  return 0;
}
