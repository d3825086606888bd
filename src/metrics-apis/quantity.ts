// Quantities as an adapter serializes them (resource.Quantity, DecimalSI): `1500m`, `2`, `3k`.
import { formatScaled } from '../machinery/resources.js';
import { parseQuantity } from '../machinery/quantity.js';

/** The canonical DecimalSI form of a quantity string (values are kept to the milli-unit, rounded up). */
export function canonicalQuantity(raw: string): string {
  const q = parseQuantity(raw.trim());
  if (!('value' in q)) return raw.trim();
  const milli = Math.ceil(q.value * 1000 - 1e-6);
  if (!Number.isSafeInteger(milli)) return raw.trim();
  return formatScaled(milli, 1000, ['m', '', 'k', 'M', 'G', 'T', 'P', 'E']);
}
