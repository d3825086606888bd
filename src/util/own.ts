// Own-property access for objects whose keys come from clients. A key such as `__proto__`, `constructor` or
// `toString` is an ordinary key here, as in Go: reads never see inherited members, and writes create an own
// property instead of invoking Object.prototype's `__proto__` setter.

export type Dict = Record<string, unknown>;

export function hasOwn(o: object, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** `o[key]` if `key` is o's own property, else undefined. */
export function getOwn(o: object, key: string): unknown {
  return hasOwn(o, key) ? (o as Dict)[key] : undefined;
}

/** `o[key] = value` as an own, enumerable data property (also for `__proto__`). */
export function setOwn(o: object, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(o, key, { value, writable: true, enumerable: true, configurable: true });
  else (o as Dict)[key] = value;
}
