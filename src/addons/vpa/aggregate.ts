// The usage history of one container name under one VPA: a decaying histogram of cpu samples and one of memory
// peaks (the largest usage of each container instance per aggregation interval; a larger sample in the same
// interval replaces the peak), plus the first and last sample times and the sample count that confidence is made of.
import { DecayingHistogram, cpuHistogramOptions, memoryHistogramOptions, minSampleWeight } from './histogram.js';

export interface AggregationConfig {
  cpuHalfLifeMs: number;
  memoryHalfLifeMs: number;
  /** Length of one memory peak interval. */
  memoryIntervalMs: number;
}

export const defaultAggregation: AggregationConfig = {
  cpuHalfLifeMs: 24 * 3600_000,
  memoryHalfLifeMs: 24 * 3600_000,
  memoryIntervalMs: 24 * 3600_000,
};

/** How many container instances' memory peaks one aggregate remembers (oldest dropped first). */
const maxInstances = 1024;

export class AggregateState {
  readonly cpu: DecayingHistogram;
  readonly memoryPeaks: DecayingHistogram;
  firstSampleMs: number | undefined;
  lastSampleMs: number | undefined;
  totalSamples = 0;
  private readonly peaks = new Map<string, { windowStart: number; peak: number }>();

  constructor(private readonly config: AggregationConfig = defaultAggregation) {
    this.cpu = new DecayingHistogram(cpuHistogramOptions, config.cpuHalfLifeMs);
    this.memoryPeaks = new DecayingHistogram(memoryHistogramOptions, config.memoryHalfLifeMs);
  }

  /** A cpu sample in cores, measured at `atMs`. */
  addCpu(cores: number, atMs: number): void {
    if (!Number.isFinite(cores) || cores < 0) return;
    this.cpu.addSample(cores, minSampleWeight, atMs);
    if (this.lastSampleMs === undefined || atMs > this.lastSampleMs) this.lastSampleMs = atMs;
    if (this.firstSampleMs === undefined || atMs < this.firstSampleMs) this.firstSampleMs = atMs;
    this.totalSamples++;
  }

  /** A memory sample in bytes of one container instance (`instance`: pod uid and container name). */
  addMemory(instance: string, bytes: number, atMs: number): void {
    if (!Number.isFinite(bytes) || bytes < 0) return;
    const cur = this.peaks.get(instance);
    if (cur && atMs < cur.windowStart + this.config.memoryIntervalMs) {
      if (bytes <= cur.peak) return;
      this.memoryPeaks.subtractSample(cur.peak, 1, cur.windowStart);
      this.memoryPeaks.addSample(bytes, 1, cur.windowStart);
      cur.peak = bytes;
      return;
    }
    // A new interval for this instance: its peak so far is this sample.
    const windowStart = cur ? cur.windowStart + Math.floor((atMs - cur.windowStart) / this.config.memoryIntervalMs) * this.config.memoryIntervalMs : atMs;
    this.memoryPeaks.addSample(bytes, 1, windowStart);
    this.peaks.delete(instance);
    this.peaks.set(instance, { windowStart, peak: bytes });
    if (this.peaks.size > maxInstances) this.peaks.delete(this.peaks.keys().next().value as string);
  }

  isEmpty(): boolean {
    return this.totalSamples === 0;
  }
}
