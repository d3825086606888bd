// An add-on project's validating webhook, run in process as an admission plugin: it sees the add-on's own kind on
// create and update (not its status), after defaulting and schema validation as upstream's webhooks do, and a refusal
// reaches the client as kube-apiserver relays a webhook's: the webhook's status, its message prefixed with
// `admission webhook "<name>" denied the request`.
import type { AdmissionAttributes, AdmissionPlugin } from '../admission/types.js';
import { webhookDenied } from '../admission/webhook/errors.js';
import { ApiError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';

export interface AddonWebhook {
  /** The webhook's name in the project's ValidatingWebhookConfiguration (`vjobset.kb.io`). */
  name: string;
  group: string;
  plural: string;
  /** The refusal (an ApiError as the webhook would answer it), or undefined to admit. `old` is set on update. */
  validate(obj: KObject, old: KObject | undefined, a: AdmissionAttributes): ApiError | undefined;
}

const applies = (w: AddonWebhook, a: AdmissionAttributes) =>
  (a.operation === 'CREATE' || a.operation === 'UPDATE') && a.subresource === '' && a.def.group === w.group && a.def.plural === w.plural && !!a.object;

export function validatingWebhook(w: AddonWebhook): AdmissionPlugin {
  return {
    name: w.name,
    handles: (a) => applies(w, a),
    validate(a) {
      if (!applies(w, a)) return;
      const refusal = w.validate(a.object!, a.operation === 'UPDATE' ? a.oldObject : undefined, a);
      if (refusal) throw webhookDenied(w.name, { code: refusal.code, reason: refusal.reason, message: refusal.message, details: refusal.details });
    },
  };
}

/** controller-runtime's answer to a validator's plain error: 403 Forbidden with the error's text. */
export const denied = (message: string) => new ApiError(403, 'Forbidden', message);

/** The text of an aggregate of errors, as k8s.io/apimachinery's: one alone, or `[a, b]` (duplicates once). */
export function aggregate(messages: string[]): string {
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
