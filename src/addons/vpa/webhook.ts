// The VPA admission controller's check of VerticalPodAutoscalers (kubernetes/autoscaler vertical-pod-autoscaler,
// admission-controller `resource/vpa` ValidateVPA, webhook `vpa.k8s.io`), in process: updatePolicy (updateMode
// required, minReplicas positive), container policies (name required, mode Auto or Off, minAllowed/maxAllowed whole
// milli-CPUs and bytes with max not under min, no RequestsAndLimits with mode Off), targetRef required on create, at
// most one recommender, and the fields behind feature gates that are off by default (PerVPAConfig, CPUStartupBoost)
// refused on create. Upstream answers a Status with only a message, which kube-apiserver relays as a 400.
import type { AdmissionPlugin } from '../../admission/types.js';
import { ApiError } from '../../machinery/errors.js';
import type { KObject } from '../../machinery/types.js';
import { parseQuantity } from '../../machinery/quantity.js';
import { validatingWebhook } from '../validating-webhook.js';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : undefined);
const text = (v: unknown) => (typeof v === 'string' ? v : String(v));

/** A quantity that keeps its value at `scale` decimal places (Go's Quantity.AsScale precision check). */
function wholeAt(raw: unknown, places: number): boolean {
  const q = parseQuantity(raw);
  if (!('value' in q)) return true;
  const scaled = q.value * 10 ** places;
  return Math.abs(scaled - Math.round(scaled)) <= 1e-9 * Math.max(1, Math.abs(scaled));
}

/** How Go prints a quantity with a fraction (the case here): the largest of m, u, n that makes it whole. */
function fractionText(raw: unknown): string {
  const q = parseQuantity(raw);
  if (!('value' in q)) return text(raw);
  for (const [places, suffix] of [[3, 'm'], [6, 'u'], [9, 'n']] as const) {
    if (wholeAt(raw, places)) return `${Math.round(q.value * 10 ** places)}${suffix}`;
  }
  return `${Math.ceil(q.value * 1e9)}n`;
}

function resolutionError(resource: string, raw: unknown): string | undefined {
  const shown = () => fractionText(raw);
  if (resource === 'cpu' && !wholeAt(raw, 3)) return `CPU [${shown()}] must be a whole number of milli CPUs`;
  if (resource === 'memory' && !wholeAt(raw, 0)) return `memory [${shown()}] must be a whole number of bytes`;
  return undefined;
}

const quantity = (raw: unknown) => {
  const q = parseQuantity(raw);
  return 'value' in q ? q.value : 0;
};

function policyError(p: Rec): string | undefined {
  if (!p.containerName) return 'containerPolicies.ContainerName is required';
  const mode = p.mode;
  if (mode !== undefined && mode !== 'Auto' && mode !== 'Off') return `unexpected Mode value ${text(mode)}`;
  const min = rec(p.minAllowed) ?? {};
  const max = rec(p.maxAllowed) ?? {};
  for (const [resource, value] of Object.entries(min)) {
    const bad = resolutionError(resource, value);
    if (bad) return `minAllowed: ${bad}`;
    if (Object.hasOwn(max, resource) && quantity(max[resource]) < quantity(value)) return `max resource for ${resource} is lower than min`;
  }
  for (const [resource, value] of Object.entries(max)) {
    const bad = resolutionError(resource, value);
    if (bad) return `maxAllowed: ${bad}`;
  }
  if (mode === 'Off' && p.controlledValues === 'RequestsAndLimits') return "controlledValues shouldn't be specified if container scaling mode is off";
  return undefined;
}

const startupBoostOff = 'in order to use startupBoost, you must enable feature gate CPUStartupBoost in the admission-controller args';

/** ValidateVPA's first error, or undefined. */
export function vpaError(vpa: KObject, isCreate: boolean): string | undefined {
  const spec = rec(vpa.spec) ?? {};
  const update = rec(spec.updatePolicy);
  const resourcePolicy = rec(spec.resourcePolicy);
  const policies = (Array.isArray(resourcePolicy?.containerPolicies) ? resourcePolicy.containerPolicies : []).map((p) => rec(p) ?? {});
  if (isCreate && update?.evictAfterOOMSeconds !== undefined) return 'EvictAfterOOMSeconds is not supported when feature flag PerVPAConfig is disabled';
  if (isCreate && policies.some((p) => p.oomBumpUpRatio !== undefined || p.oomMinBumpUp !== undefined)) {
    return 'OOMBumpUpRatio and OOMMinBumpUp are not supported when feature flag PerVPAConfig is disabled';
  }
  if (update) {
    if (update.updateMode === undefined || update.updateMode === null) return 'updateMode is required if UpdatePolicy is used';
    if (!['Off', 'Initial', 'Recreate', 'Auto', 'InPlaceOrRecreate'].includes(text(update.updateMode))) return `unexpected UpdateMode value ${text(update.updateMode)}`;
    if (typeof update.minReplicas === 'number' && update.minReplicas <= 0) return `minReplicas has to be positive, got ${update.minReplicas}`;
  }
  for (const p of policies) {
    const bad = policyError(p);
    if (bad) return bad;
    if (p.startupBoost && isCreate) return `invalid startupBoost in container ${text(p.containerName)}: ${startupBoostOff}`;
  }
  if (spec.startupBoost && isCreate) return `invalid startupBoost: ${startupBoostOff}`;
  if (isCreate && !spec.targetRef) return "targetRef is required. If you're using v1beta1 version of the API, please migrate to v1";
  if (Array.isArray(spec.recommenders) && spec.recommenders.length > 1) return "the current version of VPA object shouldn't specify more than one recommenders";
  return undefined;
}

export function vpaWebhook(): AdmissionPlugin {
  return validatingWebhook({
    name: 'vpa.k8s.io', group: 'autoscaling.k8s.io', plural: 'verticalpodautoscalers',
    validate(obj, old) {
      const error = vpaError(obj, old === undefined);
      return error === undefined ? undefined : new ApiError(400, '', error);
    },
  });
}
