// The one `namespace/name` key of an object (work queues, caches, maps): cluster-scoped objects key as `/name`.

interface Named {
  metadata?: { namespace?: string; name?: string };
}

/** `namespace/name` of the object (`/name` when cluster-scoped). */
export const keyOf = (obj: Named): string => `${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;

/** `namespace/name` from its parts. */
export const keyFor = (namespace: string | undefined, name: string | undefined): string => `${namespace ?? ''}/${name ?? ''}`;

/** Splits a `namespace/name` key (a key without a slash is a name with no namespace). */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}
