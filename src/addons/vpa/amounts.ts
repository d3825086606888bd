// Resource amounts as the VPA model keeps them: cpu in whole millicores, memory in whole bytes, capped at upstream's
// maximum amount; and their rendering as resource.Quantity prints them (cpu DecimalSI milli-scale, memory BinarySI).
import { formatScaled, quantityValue } from '../../machinery/resources.js';
import { getOwn } from '../../util/own.js';
import type { ResourceList } from './types.js';

export type ResourceName = 'cpu' | 'memory';
export const resourceNames: readonly ResourceName[] = ['cpu', 'memory'];
/** name -> integer amount (millicores, bytes). */
export type Amounts = Partial<Record<ResourceName, number>>;

/** The largest amount the model holds (upstream's MaxResourceAmount). */
export const maxAmount = 1e14;

/** A float amount rounded to an integer, never negative nor above the maximum (infinity included). */
export function amountFromFloat(x: number): number {
  if (Number.isNaN(x) || x <= 0) return 0;
  if (x > maxAmount) return maxAmount;
  return Math.round(x);
}

export const cpuAmountFromCores = (cores: number) => amountFromFloat(cores * 1000);
export const memoryAmountFromBytes = (bytes: number) => amountFromFloat(bytes);

/** The amount of a quantity in model units (cpu millicores rounded up, as MilliValue does; memory bytes). */
export function amountOfQuantity(resource: ResourceName, q: unknown): number {
  const v = quantityValue(q);
  return resource === 'cpu' ? Math.min(maxAmount, Math.ceil(Math.round(v * 1e9) / 1e6)) : Math.min(maxAmount, Math.ceil(v));
}

/** The cpu and memory amounts of a resource list (other names are ignored; absent names stay absent). */
export function amountsOf(list: ResourceList | Record<string, unknown> | undefined): Amounts {
  const out: Amounts = {};
  if (!list || typeof list !== 'object') return out;
  for (const r of resourceNames) {
    const q = getOwn(list, r);
    if (q !== undefined && q !== null) out[r] = amountOfQuantity(r, q);
  }
  return out;
}

export function formatAmount(resource: ResourceName, amount: number): string {
  const n = Math.max(0, Math.round(amount));
  return resource === 'cpu' ? formatScaled(n, 1000, ['m', '', 'k', 'M', 'G', 'T']) : formatScaled(n, 1024, ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei']);
}

/** A resource list in resource.Quantity's canonical text (cpu first, then memory). */
export function formatAmounts(a: Amounts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of resourceNames) if (a[r] !== undefined) out[r] = formatAmount(r, a[r]);
  return out;
}
