// The webhooks of every Validating/MutatingWebhookConfiguration, in upstream's order (configurations by name, webhooks
// in order), recomputed only when a configuration changed (their resourceVersions are the cache key).
import type { AdmissionServer } from '../types.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import type { CompiledConditions } from './match-conditions.js';

export type WebhookKind = 'validating' | 'mutating';

export interface Hook {
  /** Unique within the process: `configuration/index` (reinvocation keeps track of hooks by it). */
  uid: string;
  configurationName: string;
  name: string;
  spec: Record<string, unknown>;
  /** matchConditions compiled once per configuration version (set on first use). */
  conditions?: CompiledConditions;
}

export const configurationKey: Record<WebhookKind, string> = {
  validating: 'admissionregistration.k8s.io/validatingwebhookconfigurations',
  mutating: 'admissionregistration.k8s.io/mutatingwebhookconfigurations',
};

/** At most this many webhooks are considered per kind (a bound on what one request may fan out to). */
export const maxWebhooks = 1000;

export class WebhookSource {
  private signature = '';
  private hooks: Hook[] = [];

  constructor(readonly kind: WebhookKind) {}

  /** The current webhooks; cheap when nothing changed (no configurations: one empty list read). */
  current(registry: AdmissionServer): Hook[] {
    const configs = registry.listStored(configurationKey[this.kind]);
    if (configs.length === 0) {
      if (this.hooks.length) { this.hooks = []; this.signature = ''; }
      return this.hooks;
    }
    let sig = '';
    for (const c of configs) sig += `${c.metadata.uid ?? ''}@${c.metadata.resourceVersion ?? ''};`;
    if (sig !== this.signature) {
      this.hooks = build(configs);
      this.signature = sig;
    }
    return this.hooks;
  }
}

function build(configs: KObject[]): Hook[] {
  const sorted = [...configs].sort((a, b) => {
    const x = a.metadata.name ?? '';
    const y = b.metadata.name ?? '';
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const out: Hook[] = [];
  for (const c of sorted) {
    const webhooks = Array.isArray(c.webhooks) ? c.webhooks : [];
    webhooks.forEach((w, i) => {
      if (!isRecord(w) || out.length >= maxWebhooks) return;
      out.push({ uid: `${c.metadata.name ?? ''}/${i}`, configurationName: c.metadata.name ?? '', name: typeof w.name === 'string' ? w.name : '', spec: w });
    });
  }
  return out;
}
