// Kubernetes resource quantities to numbers: CPU in cores, everything else in base units.
const suffixes: Record<string, number> = {
  n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};
const re = /^([+-]?[0-9.]+)(?:([eE][+-]?[0-9]+)|(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?)$/;

/** Parsed quantities (the same few strings recur across thousands of pods), bounded. */
const cache = new Map<string, number>();

export function quantity(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v !== 'string') return 0;
  let n = cache.get(v);
  if (n === undefined) {
    n = parse(v);
    if (cache.size >= 2000) cache.clear();
    cache.set(v, n);
  }
  return n;
}

function parse(v: string): number {
  const m = re.exec(v.trim());
  if (!m) return 0;
  const n = Number(m[1]);
  if (m[2]) return n * 10 ** Number(m[2].slice(1));
  return n * (suffixes[m[3] ?? ''] ?? 1);
}

/** CPU in cores, up to two decimals: `6.25`, `0.5`, `8`. */
export function fmtCpu(cores: number): string {
  if (cores > 0 && cores < 0.005) return '<0.01';
  return `${+cores.toFixed(2)}`;
}
/** Memory in Gi, up to two decimals (the caller writes the unit once: `1.2/15.9 Gi`). */
export function fmtGi(bytes: number): string {
  const gi = bytes / 2 ** 30;
  if (gi > 0 && gi < 0.005) return '<0.01';
  return `${+gi.toFixed(gi >= 10 ? 1 : 2)}`;
}
