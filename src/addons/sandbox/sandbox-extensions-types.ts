// The extensions.agents.x-k8s.io API as the claim and warm-pool controllers read it: SandboxTemplate (just data: a
// pod template, volume claim templates and whether to create a service), SandboxClaim and SandboxWarmPool.
import type { KObject } from '../../machinery/types.js';
import { record, type ClaimTemplate, type Condition, type Sandbox, type SandboxSpec } from './sandbox-types.js';

export const templateRef = 'extensions.agents.x-k8s.io/v1beta1/sandboxtemplates';
export const claimRef = 'extensions.agents.x-k8s.io/v1beta1/sandboxclaims';
export const poolRef = 'extensions.agents.x-k8s.io/v1beta1/sandboxwarmpools';
export const extensionsGroup = 'extensions.agents.x-k8s.io';

export interface SandboxTemplate extends KObject {
  spec?: { podTemplate?: SandboxSpec['podTemplate']; volumeClaimTemplates?: ClaimTemplate[]; service?: boolean };
}

export interface SandboxClaim extends KObject {
  spec?: {
    /** v1alpha1. */
    sandboxTemplateRef?: { name?: string };
    /** v1alpha1: `none` never adopts, `default` adopts from any pool of the template, otherwise the pool's name. */
    warmpool?: string;
    /** v1beta1. */
    warmPoolRef?: { name?: string };
  };
  status?: { conditions?: Condition[]; sandbox?: { name?: string; podIPs?: string[] } };
}

export interface SandboxWarmPool extends KObject {
  spec?: { replicas?: number; sandboxTemplateRef?: { name?: string } };
  status?: { replicas?: number; readyReplicas?: number; selector?: string; observedGeneration?: number };
}

/** The Sandbox spec a template stands for (a fresh copy). */
export function specFromTemplate(t: SandboxTemplate): SandboxSpec {
  const s = record(t.spec);
  const spec: SandboxSpec = { podTemplate: structuredClone(t.spec?.podTemplate ?? {}) };
  if (Array.isArray(s.volumeClaimTemplates)) spec.volumeClaimTemplates = structuredClone(t.spec?.volumeClaimTemplates ?? []);
  if (typeof s.service === 'boolean') spec.service = s.service;
  return spec;
}

export const isReady = (sb: Sandbox) => !sb.metadata.deletionTimestamp && (sb.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

