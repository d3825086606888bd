// The recommendation math of the VPA recommender: percentiles of the usage histograms, a safety margin, bounds that
// widen while the history is short (the confidence multiplier), and per-pod minimums split between the containers.
import type { AggregateState } from './aggregate.js';
import { amountFromFloat, cpuAmountFromCores, memoryAmountFromBytes, type Amounts, type ResourceName } from './amounts.js';

export interface RecommenderConfig {
  safetyMarginFraction: number;
  podMinCpuMillicores: number;
  podMinMemoryMb: number;
  targetCpuPercentile: number;
  lowerBoundCpuPercentile: number;
  upperBoundCpuPercentile: number;
  targetMemoryPercentile: number;
  lowerBoundMemoryPercentile: number;
  upperBoundMemoryPercentile: number;
  confidenceIntervalCpuMs: number;
  confidenceIntervalMemoryMs: number;
}

/** Upstream's defaults (the recommender's flags). */
export const defaultRecommenderConfig: RecommenderConfig = {
  safetyMarginFraction: 0.15,
  podMinCpuMillicores: 25,
  podMinMemoryMb: 250,
  targetCpuPercentile: 0.9,
  lowerBoundCpuPercentile: 0.5,
  upperBoundCpuPercentile: 0.95,
  targetMemoryPercentile: 0.9,
  lowerBoundMemoryPercentile: 0.5,
  upperBoundMemoryPercentile: 0.95,
  confidenceIntervalCpuMs: 24 * 3600_000,
  confidenceIntervalMemoryMs: 24 * 3600_000,
};

export interface Estimate {
  target: Amounts;
  lowerBound: Amounts;
  upperBound: Amounts;
}

/**
 * How much history backs an aggregate, in confidence intervals: the lesser of the time it spans and the number of
 * samples it holds (one a minute makes one interval's worth).
 */
export function confidence(s: AggregateState, intervalMs: number): number {
  if (s.firstSampleMs === undefined || s.lastSampleMs === undefined) return 0;
  const lifespan = (s.lastSampleMs - s.firstSampleMs) / intervalMs;
  const samples = s.totalSamples / (intervalMs / 60_000);
  return Math.min(lifespan, samples);
}

/** `base * (1 + multiplier / confidence) ^ exponent`: the bounds start wide and close in as history grows. */
function withConfidence(base: number, multiplier: number, exponent: number, conf: number): number {
  return amountFromFloat(base * (1 + multiplier / conf) ** exponent);
}

/** The recommendation for every container of a pod, from each container's aggregate (keyed by container name). */
export function estimatePod(states: ReadonlyMap<string, AggregateState>, controlled: (container: string) => readonly ResourceName[], config: RecommenderConfig = defaultRecommenderConfig): Map<string, Estimate> {
  const out = new Map<string, Estimate>();
  if (states.size === 0) return out;
  const fraction = 1 / states.size;
  const minCpu = amountFromFloat(cpuAmountFromCores(config.podMinCpuMillicores * 0.001) * fraction);
  const minMemory = amountFromFloat(memoryAmountFromBytes(config.podMinMemoryMb * 1024 * 1024) * fraction);
  for (const [name, s] of states) {
    const e = estimateContainer(s, config, minCpu, minMemory);
    const keep = controlled(name);
    const filter = (a: Amounts): Amounts => Object.fromEntries(keep.filter((r) => a[r] !== undefined).map((r) => [r, a[r]])) as Amounts;
    out.set(name, { target: filter(e.target), lowerBound: filter(e.lowerBound), upperBound: filter(e.upperBound) });
  }
  return out;
}

export function estimateContainer(s: AggregateState, config: RecommenderConfig, minCpu: number, minMemory: number): Estimate {
  const margin = 1 + config.safetyMarginFraction;
  const cpuAt = (p: number) => amountFromFloat(cpuAmountFromCores(s.cpu.percentile(p)) * margin);
  const memAt = (p: number) => amountFromFloat(memoryAmountFromBytes(s.memoryPeaks.percentile(p)) * margin);
  const cpuConf = confidence(s, config.confidenceIntervalCpuMs);
  const memConf = confidence(s, config.confidenceIntervalMemoryMs);
  return {
    target: { cpu: Math.max(cpuAt(config.targetCpuPercentile), minCpu), memory: Math.max(memAt(config.targetMemoryPercentile), minMemory) },
    lowerBound: {
      cpu: Math.max(withConfidence(cpuAt(config.lowerBoundCpuPercentile), 0.001, -2, cpuConf), minCpu),
      memory: Math.max(withConfidence(memAt(config.lowerBoundMemoryPercentile), 0.001, -2, memConf), minMemory),
    },
    upperBound: {
      cpu: Math.max(withConfidence(cpuAt(config.upperBoundCpuPercentile), 1, 1, cpuConf), minCpu),
      memory: Math.max(withConfidence(memAt(config.upperBoundMemoryPercentile), 1, 1, memConf), minMemory),
    },
  };
}
