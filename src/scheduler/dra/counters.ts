// Partitionable devices: a pool's sharedCounters (e.g. one GPU's memory and compute slices) and the devices that
// consume them (its MIG profiles). A device can be allocated only while what is left of every counter it consumes
// covers it: what the devices other claims hold consume is subtracted first, then what this allocation takes.
import type { Device } from '../../generated/k8s/resource/v1.js';
import { quantityValue } from './pools.js';
import { deviceKey, type Candidate, type PoolInfo } from './types.js';

type Sets = Map<string, Map<string, number>>;

// Counters are quantities held as floats: bytes of memory and small integers are exact, and a margin of a part
// in 10^12 keeps a sum of decimal fractions from failing on rounding alone.
const fits = (used: number, total: number) => used <= total + Math.abs(total) * 1e-12 + 1e-12;

export class CounterState {
  /** Per pool: what is left of each counter once the devices other claims hold are subtracted. */
  private readonly left = new Map<string, Sets>();
  /** Per pool: what the devices of the allocation in progress consume. */
  private readonly taking = new Map<string, Sets>();

  constructor(pools: readonly PoolInfo[], allocated: ReadonlySet<string>) {
    for (const p of pools) {
      if (!p.counterSets.size) continue;
      const left: Sets = new Map([...p.counterSets].map(([n, cs]) => [n, new Map(cs)]));
      for (const [name, d] of p.devices) {
        if (allocated.has(deviceKey({ driver: p.driver, pool: p.name, device: name }))) consume(left, d, -1);
      }
      this.left.set(p.key, left);
    }
  }

  /** Takes the device's counters if what is left covers them; false (nothing taken) when not. */
  take(c: Candidate): boolean {
    const uses = c.device.consumesCounters;
    if (!uses?.length) return true;
    const left = this.left.get(c.pool.key);
    if (!left) return false;
    // Every counter the device names must exist in its pool.
    for (const u of uses) {
      const set = left.get(u.counterSet);
      if (!set || Object.keys(u.counters ?? {}).some((n) => !set.has(n))) return false;
    }
    let taking = this.taking.get(c.pool.key);
    if (!taking) this.taking.set(c.pool.key, (taking = new Map()));
    consume(taking, c.device, 1);
    for (const u of uses) {
      for (const n of Object.keys(u.counters ?? {})) {
        if (!fits(taking.get(u.counterSet)?.get(n) ?? 0, left.get(u.counterSet)?.get(n) ?? 0)) {
          consume(taking, c.device, -1);
          return false;
        }
      }
    }
    return true;
  }

  /** Gives back what `take` took for the device. */
  release(c: Candidate): void {
    if (!c.device.consumesCounters?.length) return;
    const taking = this.taking.get(c.pool.key);
    if (taking) consume(taking, c.device, -1);
  }
}

/** Adds (sign 1) or subtracts (sign -1) the device's consumption to per-set counters, creating entries as needed. */
function consume(sets: Sets, d: Device, sign: 1 | -1): void {
  for (const u of d.consumesCounters ?? []) {
    let set = sets.get(u.counterSet);
    if (!set) sets.set(u.counterSet, (set = new Map()));
    for (const [n, c] of Object.entries(u.counters ?? {})) set.set(n, (set.get(n) ?? 0) + sign * quantityValue(c.value));
  }
}
