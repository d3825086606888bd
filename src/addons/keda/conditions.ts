// KEDA's conditions (apis/keda/v1alpha1/condition_types.go): Ready, Active, Fallback and Paused, without transition
// times; a ScaledObject starts with Ready/Active/Fallback Unknown and Paused False.
import type { ConditionStatus, KedaCondition } from './types.js';

export const initialConditions = (): KedaCondition[] => [
  { type: 'Ready', status: 'Unknown' },
  { type: 'Active', status: 'Unknown' },
  { type: 'Fallback', status: 'Unknown' },
  { type: 'Paused', status: 'False' },
];

export function areInitialized(list: KedaCondition[] | undefined): boolean {
  return ['Ready', 'Active', 'Fallback', 'Paused'].every((t) => list?.some((c) => c.type === t));
}

export function getCondition(list: KedaCondition[] | undefined, type: string): KedaCondition | undefined {
  return list?.find((c) => c.type === type);
}

/** Sets (or appends) a condition in place. */
export function setCondition(list: KedaCondition[], type: string, status: ConditionStatus, reason: string, message: string): void {
  const c = list.find((x) => x.type === type);
  if (c) {
    c.status = status;
    c.reason = reason;
    c.message = message;
  } else list.push({ type, status, reason, message });
}
