// admissionregistration.k8s.io/v1: webhook configurations, ValidatingAdmissionPolicies and their bindings, all
// cluster-scoped. The admission plugins that read them live in src/admission/.
import type { ResourceDef } from '../resource.js';
import type { KObject } from '../../machinery/types.js';
import { isRecord } from '../../machinery/types.js';
import { defaultWebhookConfiguration } from '../defaults/other.js';
import { validateWebhookConfiguration } from '../validation/admissionregistration.js';
import { validateValidatingAdmissionPolicy, validateValidatingAdmissionPolicyBinding } from '../validation/admissionregistration-policy.js';
import {
  validatingAdmissionPolicyBindingPrinter, validatingAdmissionPolicyPrinter, webhookConfigurationPrinter,
} from '../tables/admissionregistration.js';
import { loadCel } from '../../admission/policy/cel-adapter.js';

const group = 'admissionregistration.k8s.io';
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** MatchResources defaults (matchConstraints of a policy, matchResources of a binding). */
function defaultMatchResources(m: unknown): void {
  if (!isRecord(m)) return;
  if (!m.matchPolicy) m.matchPolicy = 'Equivalent';
  if (m.namespaceSelector === undefined || m.namespaceSelector === null) m.namespaceSelector = {};
  if (m.objectSelector === undefined || m.objectSelector === null) m.objectSelector = {};
  for (const r of [...list(m.resourceRules), ...list(m.excludeResourceRules)]) if (isRecord(r) && !r.scope) r.scope = '*';
}

function defaultPolicy(o: KObject): void {
  const spec = o.spec;
  if (!isRecord(spec)) return;
  if (!spec.failurePolicy) spec.failurePolicy = 'Fail';
  defaultMatchResources(spec.matchConstraints);
}

function defaultBinding(o: KObject): void {
  if (isRecord(o.spec)) defaultMatchResources(o.spec.matchResources);
}

export const admissionRegistrationResources: ResourceDef[] = [
  {
    group, version: 'v1', kind: 'ValidatingWebhookConfiguration', plural: 'validatingwebhookconfigurations', singular: 'validatingwebhookconfiguration',
    namespaced: false, categories: ['api-extensions'],
    defaults: (o) => defaultWebhookConfiguration(o as never, false), validate: (o, old) => validateWebhookConfiguration(o, old, false),
    table: webhookConfigurationPrinter, load: loadCel,
  },
  {
    group, version: 'v1', kind: 'MutatingWebhookConfiguration', plural: 'mutatingwebhookconfigurations', singular: 'mutatingwebhookconfiguration',
    namespaced: false, categories: ['api-extensions'],
    defaults: (o) => defaultWebhookConfiguration(o as never, true), validate: (o, old) => validateWebhookConfiguration(o, old, true),
    table: webhookConfigurationPrinter, load: loadCel,
  },
  {
    group, version: 'v1', kind: 'ValidatingAdmissionPolicy', plural: 'validatingadmissionpolicies', singular: 'validatingadmissionpolicy',
    namespaced: false, categories: ['api-extensions'], subresources: ['status'], generation: true,
    defaults: defaultPolicy, validate: validateValidatingAdmissionPolicy, table: validatingAdmissionPolicyPrinter, load: loadCel,
  },
  {
    group, version: 'v1', kind: 'ValidatingAdmissionPolicyBinding', plural: 'validatingadmissionpolicybindings', singular: 'validatingadmissionpolicybinding',
    namespaced: false, categories: ['api-extensions'],
    defaults: defaultBinding, validate: (o) => validateValidatingAdmissionPolicyBinding(o), table: validatingAdmissionPolicyBindingPrinter,
  },
];
