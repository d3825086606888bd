// resource.Quantity parsing, enough to validate and compare; errors worded as upstream's ParseQuantity.
import { hasOwn } from '../util/own.js';

export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
export const quantitySuffixError = "unable to parse quantity's suffix";
/** upstream's ErrNumeric; Bonsai also gives it for values beyond a float64 (1e400), which it cannot represent. */
const quantityNumericError = "unable to parse quantity's numeric part";

/**
 * `^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$` checked in one pass: as a RegExp it backtracks
 * quadratically on a long run of digits followed by a stray character.
 */
function hasQuantityFormat(s: string): boolean {
  let i = 0;
  if (s[i] === '+' || s[i] === '-') i++;
  const digitsStart = i;
  while (i < s.length && ((s[i] >= '0' && s[i] <= '9') || s[i] === '.')) i++;
  if (i === digitsStart) return false;
  while (i < s.length && 'eEinumkKMGTP'.includes(s[i])) i++;
  if (s[i] === '+' || s[i] === '-') i++;
  while (i < s.length && s[i] >= '0' && s[i] <= '9') i++;
  return i === s.length;
}
const suffixes: Record<string, number> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

/** The quantity's value as a float, or upstream's parse error text. JSON numbers are accepted as upstream does. */
export function parseQuantity(input: unknown): { value: number } | { error: string } {
  if (typeof input === 'number') return Number.isFinite(input) ? { value: input } : { error: quantityNumericError };
  if (typeof input !== 'string') return { error: quantityFormatError };
  const s = input.trim();
  if (!s || !hasQuantityFormat(s)) return { error: quantityFormatError };
  const m = /^([+-]?)([0-9]*)(\.[0-9]*)?(.*)$/.exec(s);
  if (!m || (m[2] === '' && (m[3] ?? '').length <= 1)) return { error: quantityFormatError };
  const base = Number(`${m[1]}${m[2] || '0'}${m[3] && m[3] !== '.' ? m[3] : ''}`);
  const suffix = m[4];
  let value: number;
  if (hasOwn(suffixes, suffix)) value = base * suffixes[suffix];
  else {
    const exp = /^[eE]([-+]?[0-9]+)$/.exec(suffix);
    if (!exp) return { error: quantitySuffixError };
    value = base === 0 ? 0 : base * 10 ** Number(exp[1]);
  }
  return Number.isFinite(value) ? { value } : { error: quantityNumericError };
}
