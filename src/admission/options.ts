// AdmissionRequest.options: the CreateOptions, UpdateOptions or DeleteOptions of the request, as kube-apiserver hands
// them to admission (meta.k8s.io/v1 with their kind, only the fields the request set).
import type { AdmissionOperation } from './types.js';

/** What the write pipeline knows of a request's options. */
export interface OperationOptionsInput {
  dryRun?: boolean;
  fieldManager?: string;
  propagationPolicy?: string;
  gracePeriodSeconds?: number;
  orphanDependents?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

const kinds: Partial<Record<AdmissionOperation, string>> = { CREATE: 'CreateOptions', UPDATE: 'UpdateOptions', DELETE: 'DeleteOptions' };

/** The options object admission sees for `operation` (undefined for CONNECT). */
export function operationOptions(operation: AdmissionOperation, o: OperationOptionsInput): Record<string, unknown> | undefined {
  const kind = kinds[operation];
  if (!kind) return undefined;
  const out: Record<string, unknown> = { kind, apiVersion: 'meta.k8s.io/v1' };
  if (o.dryRun) out.dryRun = ['All'];
  if (operation === 'DELETE') {
    if (typeof o.gracePeriodSeconds === 'number') out.gracePeriodSeconds = o.gracePeriodSeconds;
    if (o.preconditions && (o.preconditions.uid || o.preconditions.resourceVersion)) out.preconditions = { ...o.preconditions };
    if (typeof o.orphanDependents === 'boolean') out.orphanDependents = o.orphanDependents;
    if (o.propagationPolicy) out.propagationPolicy = o.propagationPolicy;
  } else if (o.fieldManager) out.fieldManager = o.fieldManager;
  return out;
}
