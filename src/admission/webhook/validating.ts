// The ValidatingAdmissionWebhook plugin: every matching validating webhook is called in parallel; the first refusal
// (in configuration order) refuses the request, as upstream's validating dispatcher returns the first error.
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import type { ApiError } from '../../machinery/errors.js';
import { WebhookSource, type Hook } from './config-source.js';
import { isExemptConfiguration, matchRules } from './rules.js';
import { callHook, failurePolicyError, shouldCall } from './dispatch.js';
import { toMatchedVersion } from './review.js';

/** Cheap pre-check shared by both webhook plugins: some webhook's rules cover the request. */
export function anyRuleMatches(hooks: Hook[], a: AdmissionAttributes): boolean {
  if (!a.canWait || hooks.length === 0 || isExemptConfiguration(a.kind)) return false;
  return hooks.some((h) => matchRules(h.spec.rules, h.spec.matchPolicy, a) !== undefined);
}

export function validatingWebhookPlugin(): AdmissionPlugin {
  const source = new WebhookSource('validating');
  return {
    name: 'ValidatingAdmissionWebhook',
    handles: (a) => a.canWait && anyRuleMatches(source.current(a.registry), a),
    async validate(a) {
      if (!a.canWait || isExemptConfiguration(a.kind)) return;
      const hooks = source.current(a.registry);
      const selected: Array<{ hook: Hook; match: NonNullable<Awaited<ReturnType<typeof shouldCall>>> }> = [];
      for (const hook of hooks) {
        const match = await shouldCall(hook, a);
        if (match) selected.push({ hook, match });
      }
      if (selected.length === 0) return;
      const outcomes = await Promise.all(selected.map(async ({ hook, match }): Promise<ApiError | undefined> => {
        try {
          await callHook(hook, a, match, toMatchedVersion(match, a.object), false);
          return undefined;
        } catch (e) {
          return failurePolicyError(hook, e);
        }
      }));
      const first = outcomes.find((e) => e !== undefined);
      if (first) throw first;
    },
  };
}
