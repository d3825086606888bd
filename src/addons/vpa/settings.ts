// The `addons: { vpa: {...} }` section of the cluster file (hostile input: every field is checked, unknown fields are
// reported), with upstream's flag defaults: the recommender and updater run every minute of clock time.
import { getOwn } from '../../util/own.js';
import { defaultRecommenderConfig, type RecommenderConfig } from './estimator.js';

export interface VpaSettings {
  recommenderIntervalMs: number;
  updaterIntervalMs: number;
  recommender: RecommenderConfig;
  /** Fewest live replicas a controller must have before the updater touches its pods (per-VPA minReplicas wins). */
  minReplicas: number;
  /** Fraction of replicas that may be down for updates at once. */
  evictionTolerance: number;
  /** Smallest relative change that updates a pod whose requests are within the bounds. */
  podUpdateThreshold: number;
  /** How long a pod must have lived before an in-bounds change updates it. */
  podLifetimeThresholdMs: number;
  /** How long an in-place resize may stay Deferred before the pod is evicted instead. */
  deferredResizeTimeoutMs: number;
}

export const defaultVpaSettings: VpaSettings = {
  recommenderIntervalMs: 60_000,
  updaterIntervalMs: 60_000,
  recommender: defaultRecommenderConfig,
  minReplicas: 2,
  evictionTolerance: 0.5,
  podUpdateThreshold: 0.1,
  podLifetimeThresholdMs: 12 * 3600_000,
  deferredResizeTimeoutMs: 5 * 60_000,
};

type Field = [key: string, min: number, max: number, set: (s: VpaSettings, v: number) => void];

const day = 86_400;
const fields: Field[] = [
  ['recommenderIntervalSeconds', 1, day, (s, v) => (s.recommenderIntervalMs = v * 1000)],
  ['updaterIntervalSeconds', 1, day, (s, v) => (s.updaterIntervalMs = v * 1000)],
  ['minReplicas', 1, 1e6, (s, v) => (s.minReplicas = Math.floor(v))],
  ['evictionTolerance', 0, 1, (s, v) => (s.evictionTolerance = v)],
  ['podUpdateThreshold', 0, 100, (s, v) => (s.podUpdateThreshold = v)],
  ['podLifetimeThresholdSeconds', 0, 365 * day, (s, v) => (s.podLifetimeThresholdMs = v * 1000)],
  ['deferredResizeTimeoutSeconds', 0, 365 * day, (s, v) => (s.deferredResizeTimeoutMs = v * 1000)],
  ['safetyMarginFraction', 0, 10, (s, v) => (s.recommender.safetyMarginFraction = v)],
  ['podMinCpuMillicores', 0, 1e6, (s, v) => (s.recommender.podMinCpuMillicores = v)],
  ['podMinMemoryMb', 0, 1e7, (s, v) => (s.recommender.podMinMemoryMb = v)],
  ['targetCpuPercentile', 0, 1, (s, v) => (s.recommender.targetCpuPercentile = v)],
  ['targetMemoryPercentile', 0, 1, (s, v) => (s.recommender.targetMemoryPercentile = v)],
  ['confidenceIntervalSeconds', 60, 365 * day, (s, v) => {
    s.recommender.confidenceIntervalCpuMs = v * 1000;
    s.recommender.confidenceIntervalMemoryMs = v * 1000;
  }],
];

/** The settings, and a message for each field that was ignored (not a number in range, or unknown). */
export function parseVpaSettings(raw: unknown): { settings: VpaSettings; warnings: string[] } {
  const settings: VpaSettings = { ...defaultVpaSettings, recommender: { ...defaultRecommenderConfig } };
  const warnings: string[] = [];
  if (raw === undefined || raw === null) return { settings, warnings };
  if (typeof raw !== 'object' || Array.isArray(raw)) return { settings, warnings: ['addons.vpa: must be a mapping'] };
  const known = new Set(fields.map((f) => f[0]));
  for (const k of Object.keys(raw)) if (!known.has(k)) warnings.push(`addons.vpa.${k}: unknown field`);
  for (const [key, min, max, set] of fields) {
    const v = getOwn(raw, key);
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
      warnings.push(`addons.vpa.${key}: must be a number from ${min} to ${max}`);
      continue;
    }
    set(settings, v);
  }
  return { settings, warnings };
}
