// ValidatingAdmissionPolicies with their bindings, rebuilt only when a policy or binding changed (uid and
// resourceVersion of each are the cache key); compiled programs survive a rebuild when the policy's generation did.
import type { AdmissionServer } from '../types.js';
import { isRecord, type KObject } from '../../machinery/types.js';
import type { CompiledPolicy } from './compile.js';

export interface PolicyEntry {
  name: string;
  policy: KObject;
  bindings: KObject[];
  compiled?: CompiledPolicy;
}

const policiesKey = 'admissionregistration.k8s.io/validatingadmissionpolicies';
const bindingsKey = 'admissionregistration.k8s.io/validatingadmissionpolicybindings';

/** At most this many policies are considered (a bound on one request's work). */
export const maxPolicies = 1000;

export class PolicySource {
  private signature = '';
  private entries: PolicyEntry[] = [];

  current(registry: AdmissionServer): PolicyEntry[] {
    const policies = registry.listStored(policiesKey);
    if (policies.length === 0) {
      if (this.entries.length) { this.entries = []; this.signature = ''; }
      return this.entries;
    }
    const bindings = registry.listStored(bindingsKey);
    let sig = '';
    for (const o of policies) sig += `${o.metadata.uid ?? ''}@${o.metadata.resourceVersion ?? ''};`;
    sig += '|';
    for (const o of bindings) sig += `${o.metadata.uid ?? ''}@${o.metadata.resourceVersion ?? ''};`;
    if (sig === this.signature) return this.entries;
    const previous = new Map(this.entries.map((e) => [e.name, e.compiled]));
    const byPolicy = new Map<string, KObject[]>();
    for (const b of bindings) {
      const name = isRecord(b.spec) && typeof b.spec.policyName === 'string' ? b.spec.policyName : '';
      if (!name) continue;
      const list = byPolicy.get(name) ?? [];
      list.push(b);
      byPolicy.set(name, list);
    }
    this.entries = policies.slice(0, maxPolicies).map((p) => {
      const name = p.metadata.name ?? '';
      return { name, policy: p, bindings: byPolicy.get(name) ?? [], compiled: previous.get(name) };
    });
    this.signature = sig;
    return this.entries;
  }
}
