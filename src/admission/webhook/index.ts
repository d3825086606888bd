// Admission webhooks: the two plugins to put in the admission list (mutating among the mutating plugins, validating
// after ValidatingAdmissionPolicy), as upstream orders MutatingAdmissionWebhook and ValidatingAdmissionWebhook.
export { mutatingWebhookPlugin } from './mutating.js';
export { validatingWebhookPlugin } from './validating.js';
