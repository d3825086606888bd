// Hostile input for the flowcontrol.apiserver.k8s.io/v1 objects (issue 22): huge, deep and prototype-named
// FlowSchemas and PriorityLevelConfigurations, limits at their edges, and writes to the built-in objects. What the
// server accepts matches only a user no request is made as (`hostile:nobody`), so no accepted schema can take a
// request of the rest of the suite, and no accepted priority level is named by a schema that matches anyone.
import { uniq, type HostileCase } from './hostile-cases.js';

const FS = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';
const PLC = '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations';
const JSON_CT = { 'content-type': 'application/json' };
const MERGE_CT = { 'content-type': 'application/merge-patch+json' };

const nobody = '{"kind":"User","user":{"name":"hostile:nobody"}}';
const anyResource = '{"verbs":["*"],"apiGroups":["*"],"resources":["*"],"clusterScope":true,"namespaces":["*"]}';

function schema(spec: string, name = uniq('fs')): string {
  return `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"${name}"},"spec":${spec}}`;
}
const rules = (subjects = nobody, resourceRules = anyResource, extra = '') => `"rules":[{"subjects":[${subjects}],"resourceRules":[${resourceRules}]${extra}}]`;
const schemaSpec = (extra = '', pl = 'hostile-unused') => `{"priorityLevelConfiguration":{"name":"${pl}"},"matchingPrecedence":5000,${rules()}${extra}}`;

function level(limited: string, name = uniq('pl'), type = 'Limited'): string {
  return `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"PriorityLevelConfiguration","metadata":{"name":"${name}"},"spec":{"type":"${type}"${limited ? `,"limited":${limited}` : ''}}}`;
}
const queuing = (q: string) => `{"nominalConcurrencyShares":1,"limitResponse":{"type":"Queue","queuing":${q}}}`;

const post = (name: string, path: string, body: string, expectCode: number, expectMessage?: RegExp): HostileCase =>
  ({ name, method: 'POST', path, headers: JSON_CT, body, expectCode, expectMessage });

export function flowcontrolApiCases(): HostileCase[] {
  const evil = '"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}';
  const many = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join(',');
  return [
    post('a FlowSchema with keys named __proto__ and constructor at every level', FS,
      schema(`{${evil},"priorityLevelConfiguration":{${evil},"name":"hostile-unused"},"matchingPrecedence":5000,"rules":[{${evil},"subjects":[{${evil},"kind":"User","user":{${evil},"name":"hostile:nobody"}}],"resourceRules":[${anyResource}]}]}`), 201),
    post('a FlowSchema with 20,000 subjects', FS, schema(`{"priorityLevelConfiguration":{"name":"hostile-unused"},${rules(many(20_000, (i) => `{"kind":"User","user":{"name":"hostile:nobody${i}"}}`))}}`), 201),
    post('a FlowSchema with 5,000 bad non-resource URLs', FS,
      schema(schemaSpec(`,"rules":[{"subjects":[${nobody}],"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":[${many(5000, (i) => `"/a*${i}"`)}]}]}]`).replace(`${rules()},`, '')), 422, /wildcard can only do suffix matching/),
    post('a FlowSchema with 1,000 rules of 50 namespaces that are not labels', FS,
      schema(`{"priorityLevelConfiguration":{"name":"hostile-unused"},"rules":[${many(1000, () => `{"subjects":[${nobody}],"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"namespaces":[${many(50, (i) => `"NS_${i}"`)}]}]}`)}]}`), 422, /each member of this list must be '\*' or a DNS-1123 label/),
    post('a FlowSchema whose subject nests 500 levels', FS, schema(schemaSpec(`,"x":${'{"a":'.repeat(500)}1${'}'.repeat(500)}`)), 201),
    post('a FlowSchema with matchingPrecedence 10^12', FS, schema('{"priorityLevelConfiguration":{"name":"hostile-unused"},"matchingPrecedence":1000000000000}'), 400),
    post('a FlowSchema with matchingPrecedence 1 not named exempt', FS, schema(schemaSpec().replace('5000', '1')), 422, /only the schema named 'exempt' may have matchingPrecedence 1/),
    post('a FlowSchema with matchingPrecedence 10001', FS, schema(schemaSpec().replace('5000', '10001')), 422, /must not be greater than 10000/),
    post('a FlowSchema with a distinguisher named __proto__', FS, schema(schemaSpec(',"distinguisherMethod":{"type":"__proto__"}')), 422, /Unsupported value/),
    post('a FlowSchema with a subject of kind __proto__', FS, schema(`{"priorityLevelConfiguration":{"name":"hostile-unused"},${rules('{"kind":"__proto__","user":{"name":"x"}}')}}`), 422, /supported values: "Group", "ServiceAccount", "User"/),
    post('a PriorityLevelConfiguration with 10,000,000 queues and a hand of 2', PLC, level(queuing('{"queues":10000000,"handSize":2,"queueLengthLimit":1}')), 201),
    post('a PriorityLevelConfiguration with 10,000,001 queues', PLC, level(queuing('{"queues":10000001,"handSize":1,"queueLengthLimit":1}')), 422, /must not be greater than 10000000/),
    post('a PriorityLevelConfiguration whose hand needs more than 60 bits', PLC, level(queuing('{"queues":1024,"handSize":7,"queueLengthLimit":1}')), 422,
      /required entropy bits of deckSize 1024 and handSize 7 should not be greater than 60/),
    post('a PriorityLevelConfiguration with 2^31 shares', PLC, level('{"nominalConcurrencyShares":2147483648,"limitResponse":{"type":"Reject"}}'), 400),
    post('a PriorityLevelConfiguration with a queue length limit of 2^31-1', PLC, level(queuing('{"queues":1,"handSize":1,"queueLengthLimit":2147483647}')), 201),
    post('a PriorityLevelConfiguration with lendablePercent -1 and keys named __proto__', PLC,
      level(`{${evil},"nominalConcurrencyShares":1,"lendablePercent":-1,"limitResponse":{${evil},"type":"Reject"}}`), 422, /must be between 0 and 100, inclusive/),
    post('an Exempt PriorityLevelConfiguration not named exempt', PLC, level('', uniq('pl'), 'Exempt'), 422, /type must be 'Exempt' if and only if name is 'exempt'/),
    { name: 'a merge patch changing the mandatory catch-all FlowSchema', method: 'PATCH', path: `${FS}/catch-all`, headers: MERGE_CT, body: '{"spec":{"matchingPrecedence":9999}}', expectCode: 422, expectMessage: /spec of 'catch-all' must equal the fixed value/ },
    { name: 'a status patch with two Dangling conditions', method: 'PATCH', path: `${FS}/global-default/status`, headers: MERGE_CT, body: '{"status":{"conditions":[{"type":"Dangling","status":"True"},{"type":"Dangling","status":"False"}]}}', expectCode: 422, expectMessage: /Duplicate value: "Dangling"/ },
    { name: 'a status patch with keys named __proto__', method: 'PATCH', path: `${PLC}/global-default/status`, headers: MERGE_CT, body: `{"status":{${evil},"conditions":[{${evil},"type":"X"}]}}`, expectCode: 200 },
  ];
}
