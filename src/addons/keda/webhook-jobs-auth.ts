// KEDA's other validating webhooks (kedacore/keda), in process: ScaledJobs (`vscaledjob.kb.io`) have their triggers
// checked as ScaledObjects do (ValidateTriggers: at least one, unique names, no useCachedMetrics on cpu, memory or
// cron), and TriggerAuthentications (`vstriggerauthentication.kb.io`) their pod identity and OAuth2 settings. An
// update that only drops the last finalizer is not checked. Refusals are 403s with KEDA's plain error texts.
import type { AdmissionPlugin } from '../../admission/types.js';
import type { KObject } from '../../machinery/types.js';
import { denied, validatingWebhook } from '../validating-webhook.js';
import { maxTriggers } from './spec.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const text = (v: unknown) => (typeof v === 'string' ? v : '');

/** ValidateTriggers' error, or undefined. */
export function validateTriggers(raw: unknown): string | undefined {
  const triggers = Array.isArray(raw) ? raw.slice(0, maxTriggers).map((t) => rec(t) ?? {}) : [];
  if (!triggers.length) return 'no triggers defined in the ScaledObject/ScaledJob';
  const names = new Set<string>();
  for (const t of triggers) {
    const type = text(t.type);
    if (t.useCachedMetrics === true && (type === 'cpu' || type === 'memory' || type === 'cron')) return `property "useCachedMetrics" is not supported for ${JSON.stringify(type)} scaler`;
    const name = text(t.name);
    if (!name) continue;
    if (names.has(name)) return `triggerName ${JSON.stringify(name)} is defined multiple times in the ScaledObject/ScaledJob, but it must be unique`;
    names.add(name);
  }
  return undefined;
}

const droppingLastFinalizer = (o: KObject, old: KObject | undefined) =>
  !!old && (o.metadata.finalizers ?? []).length === 0 && (old.metadata.finalizers ?? []).length === 1 && JSON.stringify(o.spec) === JSON.stringify(old.spec);

/** TriggerAuthentication's validateSpec error, or undefined. */
export function triggerAuthError(specRaw: unknown): string | undefined {
  const spec = rec(specRaw) ?? {};
  const id = rec(spec.podIdentity);
  const set = (v: unknown) => typeof v === 'string' && v !== '';
  if (id?.provider === 'azure-workload') {
    if (id.identityId === '') return 'identityId of PodIdentity should not be empty. If it\'s set, identityId has to be different than ""';
    if (set(id.identityAuthorityHost)) {
      if (!set(id.identityTenantId)) return 'identityTenantID of PodIdentity should not be nil or empty when identityAuthorityHost of PodIdentity is set';
    } else if (id.identityTenantId === '') return 'identityTenantId of PodIdentity should not be empty. If it\'s set, identityTenantId has to be different than ""';
  } else if (id?.provider === 'aws') {
    if (set(id.roleArn) && id.identityOwner === 'workload') return "roleArn of PodIdentity can't be set if KEDA isn't identityOwner";
    if (set(id.externalID) && !set(id.roleArn)) return 'externalID of PodIdentity requires roleArn to be set';
  } else if (id) return undefined;
  const oauth = rec(spec.oauth2);
  if (oauth) {
    if (oauth.type !== 'clientCredentials') return `oauth2.type must be 'clientCredentials', got '${text(oauth.type)}'`;
    if (!set(oauth.clientId)) return 'oauth2.clientId is required when oauth2 is configured';
    if (!set(oauth.tokenUrl)) return 'oauth2.tokenUrl is required when oauth2 is configured';
    let url: URL | undefined;
    try {
      url = new URL(text(oauth.tokenUrl));
    } catch {
      url = undefined;
    }
    if (!url || !url.host || (url.protocol !== 'http:' && url.protocol !== 'https:')) return 'oauth2.tokenUrl must be a valid http or https URL';
  }
  return undefined;
}

export function scaledJobWebhook(): AdmissionPlugin {
  return validatingWebhook({
    name: 'vscaledjob.kb.io', group: 'keda.sh', plural: 'scaledjobs',
    validate(o, old) {
      if (droppingLastFinalizer(o, old)) return undefined;
      const error = validateTriggers(rec(o.spec)?.triggers);
      return error === undefined ? undefined : denied(error);
    },
  });
}

export function triggerAuthenticationWebhook(): AdmissionPlugin {
  return validatingWebhook({
    name: 'vstriggerauthentication.kb.io', group: 'keda.sh', plural: 'triggerauthentications',
    validate(o, old) {
      if (droppingLastFinalizer(o, old)) return undefined;
      const error = triggerAuthError(o.spec);
      return error === undefined ? undefined : denied(error);
    },
  });
}
