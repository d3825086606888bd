// The parts of apiextensions.k8s.io/v1 CustomResourceDefinition the server reads, as loose views of stored JSON
// (the object itself has been validated before anything reads it as these types).
import type { KObject } from '../machinery/types.js';
import type { PrinterColumn } from './printer-columns.js';

export interface CrdNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface ScaleSubresource {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: Record<string, never>; scale?: ScaleSubresource };
  additionalPrinterColumns?: PrinterColumn[];
  selectableFields?: Array<{ jsonPath: string }>;
}

export interface CrdCondition {
  type: string;
  status: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Crd extends KObject {
  spec: {
    group: string;
    names: CrdNames;
    scope: 'Namespaced' | 'Cluster';
    versions: CrdVersion[];
    conversion?: { strategy?: string; webhook?: { clientConfig?: unknown; conversionReviewVersions?: string[] } };
    preserveUnknownFields?: boolean;
  };
  status?: {
    conditions?: CrdCondition[];
    acceptedNames?: CrdNames;
    storedVersions?: string[];
  };
}

export const crdKey = 'apiextensions.k8s.io/customresourcedefinitions';
export const cleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

export const storageVersionOf = (crd: Crd): CrdVersion | undefined => crd.spec.versions.find((v) => v.storage);

/** The storage key of the custom resources a CRD defines. */
export const customResourceKey = (group: string, plural: string) => `${group}/${plural}`;

export function conditionOf(crd: Crd, type: string): CrdCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}
