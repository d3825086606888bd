// Plain-text table of figures.

export interface Row { figure: string; value: string; baseline: string; verdict: string }

export const ms = (v: number) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : 'n/a');
export const mb = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} MB` : 'n/a');
export const rate = (v: number) => (Number.isFinite(v) ? `${Math.round(v).toLocaleString('en-US')}/s` : 'n/a');

/** "ratio; target ... met/NOT met" helpers. */
export function ratio(value: number, base: number, digits = 2): string {
  return Number.isFinite(value) && Number.isFinite(base) && base > 0 ? `${(value / base).toFixed(digits)}x baseline` : '';
}
export function target(ok: boolean, text: string): string {
  return `${text}: ${ok ? 'met' : 'NOT met'}`;
}
export const join = (...parts: string[]) => parts.filter(Boolean).join('; ');

export function render(rows: Row[]): string {
  const head: Row = { figure: 'Figure', value: 'Bonsai', baseline: 'Baseline', verdict: 'Ratio / target' };
  const all = [head, ...rows];
  const w = {
    figure: Math.max(...all.map((r) => r.figure.length)),
    value: Math.max(...all.map((r) => r.value.length)),
    baseline: Math.max(...all.map((r) => r.baseline.length)),
    verdict: Math.max(...all.map((r) => r.verdict.length)),
  };
  const line = (r: Row) => `| ${r.figure.padEnd(w.figure)} | ${r.value.padStart(w.value)} | ${r.baseline.padStart(w.baseline)} | ${r.verdict.padEnd(w.verdict)} |`;
  const sep = `|${'-'.repeat(w.figure + 2)}|${'-'.repeat(w.value + 2)}|${'-'.repeat(w.baseline + 2)}|${'-'.repeat(w.verdict + 2)}|`;
  return [line(head), sep, ...rows.map(line)].join('\n');
}
