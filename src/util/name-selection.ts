// The `--controllers` syntax, shared by `--addons`: `*` is all, `name` enables, `-name` disables; without `*` only the
// names enabled run. Unknown names are an error naming the known ones.

/** The names of `known` that `spec` selects, in `known`'s order. `normalize` maps a written name to a known one. */
export function selectNames<T extends string>(spec: readonly string[], known: readonly T[], what: string, normalize: (name: string) => string = (n) => n): T[] {
  const isKnown = (n: string): n is T => (known as readonly string[]).includes(n);
  const enabled = new Set<T>();
  const disabled = new Set<T>();
  let all = false;
  for (const raw of spec.flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean)) {
    if (raw === '*') {
      all = true;
      continue;
    }
    const off = raw.startsWith('-');
    const name = normalize(off ? raw.slice(1) : raw);
    if (!isKnown(name)) throw new Error(`unknown ${what} "${raw}"; known: ${known.join(', ')}`);
    (off ? disabled : enabled).add(name);
  }
  return known.filter((n) => !disabled.has(n) && (all || enabled.has(n)));
}
