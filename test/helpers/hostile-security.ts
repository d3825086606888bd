// Hostile requests for the security and registration paths: token and access reviews, TokenRequests,
// CertificateSigningRequests, APIServices (bodies with wrong types, nulls, deep nesting and prototype-named keys)
// and credentials and impersonation headers. The suite's server runs AlwaysAllow, so impersonation is allowed.
import { deepJson, NS, uniq, type HostileCase } from './hostile-cases.js';

const JSON_CT = { 'content-type': 'application/json' };
const authn = 'authentication.k8s.io/v1';
const authz = 'authorization.k8s.io/v1';
const csrs = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const apiServices = '/apis/apiregistration.k8s.io/v1/apiservices';

function post(name: string, path: string, body: string, expectCode: number): HostileCase {
  return { name, method: 'POST', path, headers: JSON_CT, body, expectCode };
}

const review = (kind: string, spec: string) => `{"apiVersion":"${kind.endsWith('TokenReview') || kind === 'TokenRequest' ? authn : authz}","kind":"${kind}","spec":${spec}}`;
const csr = (name: string, spec: string) => `{"apiVersion":"certificates.k8s.io/v1","kind":"CertificateSigningRequest","metadata":{"name":"${name}"},"spec":${spec}}`;
const apiService = (name: string, spec: string) => `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"${name}"},"spec":${spec}}`;
const garbageCsr = Buffer.from('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n').toString('base64');

export function securityBodyCases(): HostileCase[] {
  const tokenReviews = '/apis/authentication.k8s.io/v1/tokenreviews';
  const sars = '/apis/authorization.k8s.io/v1/subjectaccessreviews';
  const ssars = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
  const ssrrs = '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews';
  const token = `/api/v1/namespaces/${NS}/serviceaccounts/default/token`;
  return [
    post('token review: token a number', tokenReviews, review('TokenReview', '{"token":5}'), 400),
    post('token review: spec null', tokenReviews, review('TokenReview', 'null'), 400),
    post('token review: prototype keys, null audience, deep unknown field', tokenReviews,
      review('TokenReview', `{"token":"x","audiences":[null,"__proto__"],"__proto__":{"x":1},"x":${deepJson(5000)}}`), 201),
    post('subject access review: resourceAttributes a list', sars, review('SubjectAccessReview', '{"user":"jane","resourceAttributes":[]}'), 400),
    post('subject access review: no user', sars, review('SubjectAccessReview', '{"resourceAttributes":{"verb":"get"}}'), 422),
    post('subject access review: prototype-named user, extras and attributes', sars,
      review('SubjectAccessReview', '{"user":"__proto__","groups":[null],"resourceAttributes":{"verb":"get","resource":"pods","__proto__":{"x":1}},"extra":{"__proto__":["a"],"constructor":["b"]}}'), 201),
    post('local subject access review: another namespace', `/apis/authorization.k8s.io/v1/namespaces/${NS}/localsubjectaccessreviews`,
      review('LocalSubjectAccessReview', '{"user":"jane","resourceAttributes":{"namespace":"other","verb":"get","resource":"pods"}}'), 422),
    post('self subject access review: no attributes', ssars, review('SelfSubjectAccessReview', '{}'), 422),
    post('self subject access review: nulls and prototype-named resource', ssars,
      review('SelfSubjectAccessReview', '{"resourceAttributes":{"verb":null,"resource":"constructor","fieldSelector":{"requirements":[null]}}}'), 201),
    post('self subject rules review: namespace a number', ssrrs, review('SelfSubjectRulesReview', '{"namespace":5}'), 400),
    post('self subject rules review: namespace __proto__', ssrrs, review('SelfSubjectRulesReview', '{"namespace":"__proto__"}'), 201),
    post('token request: expirationSeconds a string', token, review('TokenRequest', '{"expirationSeconds":"soon"}'), 400),
    post('token request: bound to a prototype-named kind', token, review('TokenRequest', '{"boundObjectRef":{"kind":"__proto__","name":"x","apiVersion":"v1"}}'), 400),
    post('csr: request not base64', csrs, csr(uniq('csr'), '{"request":"!!!","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth"]}'), 400),
    post('csr: garbage PEM, null usage, prototype-named extra', csrs,
      csr(uniq('csr'), `{"request":"${garbageCsr}","signerName":"kubernetes.io/kube-apiserver-client","usages":["client auth",null],"extra":{"__proto__":["x"]}}`), 422),
    post('csr: usages a string', csrs, csr(uniq('csr'), '{"request":"AAAA","signerName":"x","usages":"client auth"}'), 400),
    post('apiservice: port a string', apiServices, apiService('v1.x.io', '{"group":"x.io","version":"v1","service":{"namespace":"a","name":"b","port":"x"},"groupPriorityMinimum":1,"versionPriority":1}'), 400),
    post('apiservice: group __proto__', apiServices, apiService('v1.__proto__', '{"group":"__proto__","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"insecureSkipTLSVerify":true}'), 422),
    post('apiservice: spec null', apiServices, apiService('v1.y.io', 'null'), 422),
  ];
}

export function credentialHeaderCases(): HostileCase[] {
  const list = `/api/v1/namespaces/${NS}/configmaps`;
  const get = (name: string, headers: Record<string, string>, expectCode: number): HostileCase => ({ name, method: 'GET', path: list, headers, expectCode });
  return [
    get('impersonate user __proto__', { 'Impersonate-User': '__proto__' }, 200),
    get('impersonate a prototype-named ServiceAccount', { 'Impersonate-User': 'system:serviceaccount:__proto__:constructor' }, 200),
    get('impersonate extra named __proto__', { 'Impersonate-User': 'a', 'Impersonate-Extra-__proto__': 'x', 'Impersonate-Extra-constructor': 'y' }, 200),
    get('impersonate a group without a user', { 'Impersonate-Group': 'g' }, 400),
    get('impersonate a uid without a user', { 'Impersonate-Uid': 'u' }, 400),
    get('bearer token __proto__', { authorization: 'Bearer __proto__' }, 401),
    get('bearer token of many JWT parts', { authorization: `Bearer ${'e30.'.repeat(2000)}` }, 401),
    get('bearer token an alg:none JWT', { authorization: `Bearer ${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"x"}').toString('base64url')}.` }, 401),
  ];
}
