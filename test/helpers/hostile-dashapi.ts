// Hostile input for the dashboard's JSON paths (src/api/bonsai-routes/): revisions, resource lists, paging
// parameters and pod names that are no numbers, too long, repeated, prototype keys or escapes. Every error is a
// Status; nothing is a 5xx. Runs after the suite's fixtures exist (pod1, gated, in the hostile namespace).
import { NS, type HostileCase } from './hostile-cases.js';

const H = '/bonsai/v1/history';
const S = '/bonsai/v1/scheduling/namespaces';
const bad = { expectCode: 400, expectReason: 'BadRequest' };
const notFound = { expectCode: 404, expectReason: 'NotFound' };

export function dashboardApiCases(): HostileCase[] {
  const long = 'x'.repeat(900);
  const get = (name: string, path: string, expect: Partial<HostileCase>): HostileCase => ({ name, method: 'GET', path, ...expect });
  return [
    get('history bounds', H, { expectCode: 200 }),
    get('history bounds, trailing slash', `${H}/`, { expectCode: 200 }),
    get('state, no parameters (newest, default resources)', `${H}/state`, { expectCode: 200 }),
    get('state at revision 0', `${H}/state?revision=0`, { expectCode: 200 }),
    get('state, revision not a number', `${H}/state?revision=abc`, bad),
    get('state, negative revision', `${H}/state?revision=-1`, bad),
    get('state, revision in exponent form', `${H}/state?revision=1e3`, bad),
    get('state, revision with spaces', `${H}/state?revision=%201`, bad),
    get('state, revision NUL', `${H}/state?revision=%00`, bad),
    get('state, revision beyond int64', `${H}/state?revision=${'9'.repeat(40)}`, bad),
    get('state, revision ahead of the log', `${H}/state?revision=999999999999999`, { ...bad, expectMessage: /^revision 999999999999999 is newer than the newest revision \d+$/ }),
    get('state, repeated revision (the last counts)', `${H}/state?revision=0&revision=x`, bad),
    get('state, empty revision (newest)', `${H}/state?revision=`, { expectCode: 200 }),
    get('state, resources __proto__', `${H}/state?resources=__proto__`, bad),
    get('state, resources constructor', `${H}/state?resources=constructor`, { ...bad, expectMessage: /^the server doesn't have a resource type "constructor"$/ }),
    get('state, resources prototype', `${H}/state?resources=prototype`, bad),
    get('state, resources toString', `${H}/state?resources=toString`, bad),
    get('state, resources hasownproperty', `${H}/state?resources=hasownproperty`, bad),
    get('state, resources repeated', `${H}/state?resources=pods,pods,pods`, { expectCode: 200 }),
    get('state, an empty resource in the list', `${H}/state?resources=pods,,nodes`, bad),
    get('state, a lone comma', `${H}/state?resources=,`, bad),
    get('state, too many resources', `${H}/state?resources=${'pods,'.repeat(40)}pods`, bad),
    get('state, a huge resource list', `${H}/state?resources=${'a,'.repeat(5000)}a`, { ...bad, maxMs: 2000 }),
    get('state, a very long resource name', `${H}/state?resources=${long}`, bad),
    get('state, a subresource', `${H}/state?resources=pods%2Fstatus`, bad),
    get('state, a resource in the wrong group', `${H}/state?resources=pods.apps`, bad),
    get('state, a qualified resource', `${H}/state?resources=deployments.apps,configmaps`, { expectCode: 200 }),
    get('state, resource with upper case', `${H}/state?resources=Pods`, bad),
    get('state, prototype keys as parameters', `${H}/state?__proto__=1&constructor=2&resources=pods`, { expectCode: 200 }),
    get('changes, no parameters', `${H}/changes`, { expectCode: 200 }),
    get('changes, from not a number', `${H}/changes?from=abc`, bad),
    get('changes, to not a number', `${H}/changes?to=__proto__`, bad),
    get('changes, from after to', `${H}/changes?from=5&to=2`, bad),
    get('changes, from ahead of the log', `${H}/changes?from=999999999999999`, bad),
    get('changes, to ahead of the log (clamped)', `${H}/changes?from=0&to=999999999999999&resources=configmaps&limit=3`, { expectCode: 200 }),
    get('changes, limit 0', `${H}/changes?limit=0`, bad),
    get('changes, negative limit', `${H}/changes?limit=-1`, bad),
    get('changes, limit beyond int32', `${H}/changes?limit=99999999999`, bad),
    get('changes, large limit (capped)', `${H}/changes?limit=100000000&resources=pods`, { expectCode: 200 }),
    get('changes, continue not a revision', `${H}/changes?continue=abc`, bad),
    get('changes, continue ..', `${H}/changes?continue=%2e%2e`, bad),
    get('changes, continue before from', `${H}/changes?from=5&to=10&continue=2`, bad),
    get('changes, continue after to', `${H}/changes?from=0&to=3&continue=9`, bad),
    get('changes, resources __proto__', `${H}/changes?resources=__proto__`, bad),
    get('changes, repeated parameters', `${H}/changes?from=x&from=0&limit=0&limit=2`, { expectCode: 200 }),
    // pod1 waits behind a scheduling gate: no attempt, so no decision.
    get('explanation of a gated pod', `${S}/${NS}/pods/pod1`, notFound),
    get('explanation, pod __proto__', `${S}/${NS}/pods/__proto__`, notFound),
    get('explanation, namespace constructor', `${S}/constructor/pods/prototype`, notFound),
    get('explanation, pod toString', `${S}/${NS}/pods/toString`, notFound),
    get('explanation, very long name', `${S}/${NS}/pods/${long}`, { ...notFound, maxMs: 2000 }),
    get('explanation, escaped slash', `${S}/${NS}/pods/a%2Fb`, notFound),
    get('explanation, namespace ..', `${S}/%2e%2e/pods/pod1`, notFound),
    get('explanation, NUL in the name', `${S}/${NS}/pods/a%00b`, notFound),
    get('explanation, query parameters ignored', `${S}/${NS}/pods/pod1?__proto__=x&watch=true`, notFound),
  ];
}
