// What validating and mutating webhooks share: whether a webhook is called for a request (rules, selectors,
// matchConditions, as upstream's generic.Webhook.ShouldCallHook) and one call with its response checks.
import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from '../types.js';
import { ApiError, forbidden, internalError } from '../../machinery/errors.js';
import { setOwn } from '../../util/own.js';
import type { KObject } from '../../machinery/types.js';
import { authorizerFor, loadCel, toCel } from '../policy/cel-adapter.js';
import type { Hook } from './config-source.js';
import { matchRules, type RuleMatch } from './rules.js';
import { matchesNamespaceSelector, matchesObjectSelector } from './selectors.js';
import { compileConditions, evaluateConditions, webhookConditionVars } from './match-conditions.js';
import { admissionRequest, admissionReview, toMatchedVersion, verifyResponse, PatchError, type VerifiedResponse } from './review.js';
import { postReview, resolveTarget } from './client.js';
import { CallingWebhookError, dryRunUnsupported, webhookDenied } from './errors.js';
import { awaitingOutbound } from '../../flowcontrol/dispatch/outbound.js';
import { simulatedWarning } from './service-forward.js';

/** `deployments.apps "x" is forbidden: <message>` as admission.NewForbidden words it. */
export function forbiddenFor(a: AdmissionAttributes, message: string): ApiError {
  const resource = a.resource.group ? `${a.resource.resource}.${a.resource.group}` : a.resource.resource;
  const name = a.name || a.object?.metadata?.name || a.object?.metadata?.generateName || 'Unknown';
  return forbidden(`${resource} "${name}" is forbidden: ${message}`, { name, group: a.resource.group || undefined, kind: a.resource.resource });
}

/** The rule match when the webhook's rules and selectors take the request (no CEL); throws a selector's error. */
export function selectHook(hook: Hook, a: AdmissionAttributes): RuleMatch | undefined {
  let nsError: unknown;
  let nsMatch = false;
  try {
    nsMatch = matchesNamespaceSelector(hook.spec.namespaceSelector, a);
  } catch (e) {
    nsError = e;
  }
  if (!nsMatch && nsError === undefined) return undefined;
  if (!matchesObjectSelector(hook.spec.objectSelector, a)) return undefined;
  const match = matchRules(hook.spec.rules, hook.spec.matchPolicy, a);
  if (!match) return undefined;
  if (nsError !== undefined) throw nsError instanceof ApiError ? nsError : internalError(String(nsError));
  return match;
}

/** Evaluates the webhook's matchConditions (compiled once per configuration version); true when it is to be called. */
export async function conditionsMatch(hook: Hook, a: AdmissionAttributes, match: RuleMatch): Promise<boolean> {
  const raw = hook.spec.matchConditions;
  if (!Array.isArray(raw) || raw.length === 0) return true;
  const cel = await loadCel();
  hook.conditions ??= compileConditions(cel, raw, webhookConditionVars);
  const vars = {
    object: toCel(toMatchedVersion(match, a.object) ?? null),
    oldObject: toCel(toMatchedVersion(match, a.oldObject) ?? null),
    request: toCel({ ...admissionRequest(a, match, ''), dryRun: a.dryRun, options: a.options ?? null }),
    authorizer: authorizerFor(a),
  };
  const r = evaluateConditions(hook.conditions, vars, hook.spec.failurePolicy);
  if ('error' in r) throw forbiddenFor(a, r.error);
  return r.matches;
}

/** The full selection: rules and selectors, then matchConditions. */
export async function shouldCall(hook: Hook, a: AdmissionAttributes): Promise<RuleMatch | undefined> {
  const match = selectHook(hook, a);
  if (!match) return undefined;
  return (await conditionsMatch(hook, a, match)) ? match : undefined;
}

/** The review the simulation gives for a webhook served by simulated pods. */
function simulatedReview(hook: string, service: string, uid: string): unknown {
  return {
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    response: { uid, allowed: true, warnings: [simulatedWarning(hook, service)], auditAnnotations: { 'simulated-by': 'bonsai' } },
  };
}

const timeoutOf = (hook: Hook) => {
  const t = hook.spec.timeoutSeconds;
  return typeof t === 'number' && Number.isInteger(t) && t >= 1 && t <= 30 ? t : 10;
};

/**
 * Calls the webhook with the request seen as `match` and `object` (already in the matched version). Throws
 * CallingWebhookError for failures the failure policy decides on, ApiError for refusals and dry-run conflicts.
 */
export async function callHook(hook: Hook, a: AdmissionAttributes, match: RuleMatch, object: KObject | undefined, mutating: boolean): Promise<VerifiedResponse> {
  if (a.dryRun) {
    const se = hook.spec.sideEffects;
    if (se === undefined || se === null) throw new CallingWebhookError(hook.name, 'Webhook SideEffects is nil');
    if (se !== 'None' && se !== 'NoneOnDryRun') throw dryRunUnsupported(hook.name);
  }
  const uid = randomUUID();
  const body = JSON.stringify(admissionReview(a, match, uid, object, toMatchedVersion(match, a.oldObject)));
  const timeout = timeoutOf(hook);
  let review: unknown;
  try {
    const target = resolveTarget(a.registry, hook.spec.clientConfig, timeout);
    // The simulation answers for simulated pods: allowed, no patch, warned and audited.
    if ('simulated' in target) review = simulatedReview(hook.name, target.simulated, uid);
    // The request's APF seat is given back while the webhook answers (see flowcontrol/dispatch/outbound.ts).
    else review = await awaitingOutbound(a.registry, () => postReview(target, (hook.spec.clientConfig as { caBundle?: unknown } | undefined)?.caBundle, body, timeout));
  } catch (e) {
    if (e instanceof TypeError && /Invalid URL/.test(e.message)) throw new CallingWebhookError(hook.name, `Unparsable URL: ${e.message}`);
    throw new CallingWebhookError(hook.name, `failed to call webhook: ${e instanceof Error ? e.message : String(e)}`);
  }
  let result: VerifiedResponse;
  try {
    result = verifyResponse(review, uid, mutating);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    throw new CallingWebhookError(hook.name, e instanceof PatchError ? msg : `received invalid webhook response: ${msg}`);
  }
  const keys = Object.keys(result.auditAnnotations);
  if (keys.length) {
    a.auditAnnotations ??= Object.create(null) as Record<string, string>;
    for (const k of keys) setOwn(a.auditAnnotations, `${hook.name}/${k}`, result.auditAnnotations[k]);
  }
  for (const w of result.warnings) if (a.warnings.length < 1000) a.warnings.push(w);
  if (!result.allowed) throw webhookDenied(hook.name, result.result);
  return result;
}

/** Applies the failure policy to a call's error: Ignore lets the request through, anything else refuses it. */
export function failurePolicyError(hook: Hook, e: unknown): ApiError | undefined {
  if (e instanceof CallingWebhookError) return hook.spec.failurePolicy === 'Ignore' ? undefined : e.toApiError();
  if (e instanceof ApiError) return e;
  return internalError(e instanceof Error ? e.message : String(e));
}

