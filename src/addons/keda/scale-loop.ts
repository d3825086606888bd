// The per-ScaledObject (or ScaledJob) polling loop: every pollingInterval of clock time it reads the scalers and hands
// the readings to its owner's check. The last readings are what the external metrics source serves for metrics whose
// scaler cannot be read synchronously (metrics-api): a metrics adapter's cache, refreshed by the loop.
import type { Logger } from '../../util/logger.js';
import type { Clock } from '../../util/clock.js';
import type { BuiltScaler } from './scalers/build.js';
import type { ScalerEnv } from './scalers/scaler.js';

export interface Reading {
  value: number;
  active: boolean;
  error?: string;
  atMs: number;
}

export interface LoopHost {
  readonly clock: Clock;
  readonly log: Logger;
  readonly env: ScalerEnv;
  /** One check of the object with fresh readings (by trigger index). */
  check(loop: ScaleLoop, readings: Map<number, Reading>): Promise<void> | void;
}

export const minPollMs = 100;

/** Reads one scaler, never throwing: an error is part of the reading. */
export async function readScaler(env: ScalerEnv, b: BuiltScaler, nowMs: number): Promise<Reading | undefined> {
  if (!b.scaler.read) return undefined;
  try {
    const r = await b.scaler.read(env);
    return { value: r.value, active: r.active, atMs: nowMs };
  } catch (err) {
    return { value: 0, active: false, error: err instanceof Error ? err.message : String(err), atMs: nowMs };
  }
}

export class ScaleLoop {
  /** The last reading of each external metric, by metric name. */
  readonly readings = new Map<string, Reading>();
  /** Metric names whose fallback is active now. */
  readonly fallbackMetrics = new Set<string>();
  private cancel?: () => void;
  private stopped = false;

  constructor(
    private readonly host: LoopHost,
    readonly key: string,
    /** The object's uid: an object deleted and made again under its name gets a loop of its own. */
    readonly uid: string,
    readonly generation: number,
    readonly scalers: BuiltScaler[],
    readonly pollMs: number,
  ) {}

  start(): void {
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** Whether the loop was made for this object as it is: the same object (uid), at the same generation. */
  isFor(obj: { metadata: { uid?: string; generation?: number } }): boolean {
    return obj.metadata.uid === this.uid && (obj.metadata.generation ?? 0) === this.generation;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** Runs a check now (after a spec change, say) instead of waiting for the timer. */
  poke(): void {
    if (this.stopped) return;
    // One check at a time: a poke during a check (whose scalers may be waiting on the network) runs one after it.
    if (this.checking) {
      this.again = true;
      return;
    }
    this.cancel?.();
    void this.tick();
  }

  private checking = false;
  private again = false;

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.cancel = undefined;
    this.checking = true;
    this.again = false;
    try {
      const now = this.host.clock.nowMs();
      const results = await Promise.all(this.scalers.map((b) => readScaler(this.host.env, b, now)));
      if (this.stopped) return;
      const byIndex = new Map<number, Reading>();
      results.forEach((r, i) => {
        if (!r) return;
        byIndex.set(this.scalers[i].index, r);
        const name = this.scalers[i].scaler.metricSpec().external?.metric.name;
        if (name !== undefined) this.readings.set(name, r);
      });
      await this.host.check(this, byIndex);
    } catch (err) {
      this.host.log.debug({ err, key: this.key }, 'scale loop check failed');
    }
    this.checking = false;
    if (this.again && !this.stopped) return void this.tick();
    if (!this.stopped && !this.cancel) this.cancel = this.host.clock.setTimeout(() => void this.tick(), Math.max(minPollMs, this.pollMs));
  }
}
