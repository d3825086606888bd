// ValidatingAdmissionPolicy admission: the plugin to put among the validating plugins (before the validating
// webhooks), and loadCel to preload the CEL engine (otherwise it loads on the first request a policy matches).
export { validatingAdmissionPolicyPlugin } from './plugin.js';
export { loadCel } from './cel-adapter.js';
