// Hostile input for admission configuration (issue 10): ValidatingAdmissionPolicies and bindings with hostile CEL
// (deep nesting, huge literals, comprehension bombs, invalid programs) and keys named like Object members, and
// webhook configurations that are huge, deep or malformed. What the server stores matches no resource the other
// cases write (`nothings`), so no hostile policy or webhook can take part in the rest of the suite.
import { uniq, type HostileCase } from './hostile-cases.js';

const VAPS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
const VAPBS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';
const VWCS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';
const MWCS = '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations';
const JSON_CT = { 'content-type': 'application/json' };

/** Rules that match a resource no case writes. */
const nothingRules = '{"apiGroups":["example.com"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["nothings"]}';

function policy(expression: string, extra = ''): string {
  return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicy","metadata":{"name":"${uniq('vap')}"},`
    + `"spec":{"failurePolicy":"Fail","matchConstraints":{"resourceRules":[${nothingRules}]${extra}},"validations":[{"expression":${JSON.stringify(expression)}}]}}`;
}

function webhooks(kind: 'Validating' | 'Mutating', hooks: string): string {
  return `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"${kind}WebhookConfiguration","metadata":{"name":"${uniq('wh')}"},"webhooks":[${hooks}]}`;
}

const hook = (name: string, extra = '') => `{"name":"${name}","sideEffects":"None","admissionReviewVersions":["v1"],"timeoutSeconds":1,`
  + `"clientConfig":{"url":"https://127.0.0.1:1/x"},"rules":[{"apiGroups":["example.com"],"apiVersions":["v1"],"operations":["CREATE"],"resources":["nothings"]}]${extra}}`;

const post = (name: string, path: string, body: string, expectCode: number, expectMessage?: RegExp): HostileCase =>
  ({ name, method: 'POST', path, headers: JSON_CT, body, expectCode, expectMessage, maxMs: 2000 });

export function admissionConfigCases(): HostileCase[] {
  const deepParens = `${'('.repeat(2000)}true${')'.repeat(2000)}`;
  const bomb = `[${Array.from({ length: 200 }, (_, i) => i).join(',')}].all(a, [${Array.from({ length: 200 }, (_, i) => i).join(',')}].all(b, [${Array.from({ length: 200 }, (_, i) => i).join(',')}].all(c, a + b + c >= 0)))`;
  return [
    post('a policy whose expression nests 2,000 parentheses', VAPS, policy(deepParens), 422),
    post('a policy whose expression is a 200k-character string literal', VAPS, policy(`'${'x'.repeat(200_000)}' != ''`), 422),
    post('a policy with a comprehension bomb (8 million iterations)', VAPS, policy(bomb), 201),
    post('a policy whose expression does not parse', VAPS, policy('object.spec.replicas <= '), 422, /compilation failed/),
    post('a policy reading an undeclared variable', VAPS, policy('params.max > 1'), 422, /undeclared reference to 'params'/),
    post('a policy with keys named __proto__ and constructor in matchConstraints', VAPS,
      policy('true', ',"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}'), 201),
    post('a policy whose namespaceSelector nests 200 levels', VAPS,
      policy('true', `,"namespaceSelector":${'{"matchLabels":'.repeat(200)}{}${'}'.repeat(200)}`), 400),
    post('a binding with a paramRef selector of 10,000 expressions', VAPBS,
      `{"apiVersion":"admissionregistration.k8s.io/v1","kind":"ValidatingAdmissionPolicyBinding","metadata":{"name":"${uniq('vapb')}"},"spec":{"policyName":"none","validationActions":["Deny"],`
      + `"paramRef":{"selector":{"matchExpressions":[${Array.from({ length: 10_000 }, (_, i) => `{"key":"k${i}","operator":"Exists"}`).join(',')}]},"parameterNotFoundAction":"Allow"}}}`, 201),
    post('a validating webhook configuration with 2,000 webhooks', VWCS, webhooks('Validating', Array.from({ length: 2000 }, (_, i) => hook(`h${i}.example.com`)).join(',')), 201),
    post('a webhook with an http:// URL', VWCS, webhooks('Validating', hook('plain.example.com').replace('https://', 'http://')), 422, /'https' is the only allowed URL scheme/),
    post('a webhook with a matchCondition that does not compile', VWCS, webhooks('Validating', hook('cel.example.com', ',"matchConditions":[{"name":"c","expression":"object.("}]')), 422, /compilation failed/),
    post('a mutating webhook with keys named __proto__ and constructor', MWCS,
      webhooks('Mutating', hook('proto.example.com', ',"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}')), 201),
    post('a webhook whose caBundle is not a certificate', VWCS,
      webhooks('Validating', hook('ca.example.com').replace('"url":"https://127.0.0.1:1/x"', '"url":"https://127.0.0.1:1/x","caBundle":"bm90IGEgY2VydGlmaWNhdGU="')), 201),
    post('a webhook with a timeout of 10^12 seconds', VWCS, webhooks('Validating', hook('slow.example.com').replace('"timeoutSeconds":1', '"timeoutSeconds":1000000000000')), 400, /cannot unmarshal number 1000000000000 into Go struct field ValidatingWebhook\.webhooks\.timeoutSeconds of type int32/),
    post('a webhook with a timeout of 31 seconds', VWCS, webhooks('Validating', hook('slow31.example.com').replace('"timeoutSeconds":1', '"timeoutSeconds":31')), 422, /timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds/),
  ];
}
