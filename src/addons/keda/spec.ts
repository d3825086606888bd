// The effective spec of a ScaledObject or ScaledJob, read from client data through narrowing (the CRD schema has
// typed it, but a reader never trusts that): defaults as upstream's getters apply them.
import { getOwn } from '../../util/own.js';
import { stringMap } from './metadata.js';
import { defaults, forceActivationAnnotation, pausedAnnotation, pausedReplicasAnnotation, pausedScaleInAnnotation, pausedScaleOutAnnotation } from './types.js';

export interface Trigger {
  type: string;
  name: string;
  metadata: Map<string, string>;
  metricType: string;
  authenticationRef?: { name: string; kind: string };
}

export interface Fallback {
  failureThreshold: number;
  replicas: number;
  behavior: string;
}

export interface ScaledObjectSpec {
  target: { name: string; apiVersion: string; kind: string };
  pollingIntervalS: number;
  cooldownPeriodS: number;
  initialCooldownPeriodS: number;
  idleReplicaCount?: number;
  minReplicaCount?: number;
  maxReplicaCount?: number;
  hpaName?: string;
  behavior?: unknown;
  restoreToOriginalReplicaCount: boolean;
  triggers: Trigger[];
  fallback?: Fallback;
}

const obj = (v: unknown): object => (v && typeof v === 'object' && !Array.isArray(v) ? v : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

/** At most this many triggers are read (the schema sets no bound; every trigger is a scaler). */
export const maxTriggers = 64;

export function readTriggers(v: unknown): Trigger[] {
  if (!Array.isArray(v)) return [];
  return v.slice(0, maxTriggers).map((t) => {
    const ref = getOwn(obj(t), 'authenticationRef');
    return {
      type: str(getOwn(obj(t), 'type')),
      name: str(getOwn(obj(t), 'name')),
      metadata: stringMap(getOwn(obj(t), 'metadata')),
      metricType: str(getOwn(obj(t), 'metricType')),
      authenticationRef: ref ? { name: str(getOwn(obj(ref), 'name')), kind: str(getOwn(obj(ref), 'kind')) } : undefined,
    };
  });
}

export function scaledObjectSpec(spec: unknown): ScaledObjectSpec {
  const s = obj(spec);
  const t = obj(getOwn(s, 'scaleTargetRef'));
  const adv = obj(getOwn(s, 'advanced'));
  const hpa = obj(getOwn(adv, 'horizontalPodAutoscalerConfig'));
  const fb = getOwn(s, 'fallback');
  return {
    target: { name: str(getOwn(t, 'name')), apiVersion: str(getOwn(t, 'apiVersion')) || 'apps/v1', kind: str(getOwn(t, 'kind')) || 'Deployment' },
    pollingIntervalS: int(getOwn(s, 'pollingInterval')) ?? defaults.pollingIntervalS,
    cooldownPeriodS: int(getOwn(s, 'cooldownPeriod')) ?? defaults.cooldownPeriodS,
    initialCooldownPeriodS: int(getOwn(s, 'initialCooldownPeriod')) ?? defaults.initialCooldownPeriodS,
    idleReplicaCount: int(getOwn(s, 'idleReplicaCount')),
    minReplicaCount: int(getOwn(s, 'minReplicaCount')),
    maxReplicaCount: int(getOwn(s, 'maxReplicaCount')),
    hpaName: str(getOwn(hpa, 'name')) || undefined,
    behavior: getOwn(hpa, 'behavior'),
    restoreToOriginalReplicaCount: getOwn(adv, 'restoreToOriginalReplicaCount') === true,
    triggers: readTriggers(getOwn(s, 'triggers')),
    fallback: fb && typeof fb === 'object'
      ? { failureThreshold: int(getOwn(fb, 'failureThreshold')) ?? 0, replicas: int(getOwn(fb, 'replicas')) ?? 0, behavior: str(getOwn(fb, 'behavior')) || 'static' }
      : undefined,
  };
}

/** GetHPAMinReplicas: minReplicaCount when above 0, else 1. */
export const hpaMinReplicas = (s: ScaledObjectSpec) => (s.minReplicaCount !== undefined && s.minReplicaCount > 0 ? s.minReplicaCount : defaults.hpaMinReplicas);
export const hpaMaxReplicas = (s: ScaledObjectSpec) => s.maxReplicaCount ?? defaults.hpaMaxReplicas;

/** CheckReplicaCountBoundsAreValid's error, or undefined. */
export function replicaBoundsError(s: ScaledObjectSpec): string | undefined {
  const min = s.minReplicaCount !== undefined ? hpaMinReplicas(s) : 0;
  const max = hpaMaxReplicas(s);
  if (min > max) return `MinReplicaCount=${min} must be less than MaxReplicaCount=${max}`;
  if (s.idleReplicaCount !== undefined && s.idleReplicaCount >= min) return `IdleReplicaCount=${s.idleReplicaCount} must be less than MinReplicaCount=${min}`;
  return undefined;
}

/** The validation of the triggers upstream's controller and webhook make before building scalers. */
export function triggersError(s: ScaledObjectSpec): string | undefined {
  if (!s.triggers.length) return 'no triggers defined in the ScaledObject/ScaledJob';
  const names = new Set<string>();
  for (const t of s.triggers) {
    if (t.name) {
      if (names.has(t.name)) return `triggerName ${JSON.stringify(t.name)} is defined multiple times in the ScaledObject/ScaledJob, but it must be unique`;
      names.add(t.name);
    }
  }
  const cpuMem = s.triggers.filter((t) => t.type === 'cpu' || t.type === 'memory').length;
  if (cpuMem === s.triggers.length && (s.minReplicaCount ?? 0) === 0) return 'scaledobject has only cpu/memory triggers AND minReplica is 0 (scale to zero doesn\'t work in this case)';
  return undefined;
}

/** Go's strconv.ParseBool, a value that is not a bool counting as true (getBoolAnnotation). */
function boolAnnotation(ann: Record<string, string> | undefined, key: string): boolean {
  const v = ann ? getOwn(ann, key) : undefined;
  if (typeof v !== 'string') return false;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return true;
}

export function pausedReplicas(ann: Record<string, string> | undefined): { value?: number; error?: string; present: boolean } {
  const v = ann ? getOwn(ann, pausedReplicasAnnotation) : undefined;
  if (typeof v !== 'string') return { present: false };
  if (!/^[+-]?\d{1,10}$/.test(v) || Math.abs(Number(v)) > 2 ** 31 - 1) return { present: true, error: `strconv.ParseInt: parsing ${JSON.stringify(v)}: invalid syntax` };
  return { present: true, value: Number(v) };
}

export const needsPause = (ann: Record<string, string> | undefined) => pausedReplicas(ann).present || boolAnnotation(ann, pausedAnnotation);
export const pauseScaleIn = (ann: Record<string, string> | undefined) => boolAnnotation(ann, pausedScaleInAnnotation);
export const pauseScaleOut = (ann: Record<string, string> | undefined) => boolAnnotation(ann, pausedScaleOutAnnotation);
export const forceActivation = (ann: Record<string, string> | undefined) => boolAnnotation(ann, forceActivationAnnotation);
