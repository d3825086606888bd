// Hostile input for CustomResourceDefinitions and custom objects (issue 10): CRDs with hostile schemas (deep, keys
// named like Object members, huge enums and patterns, backtracking and invalid regular expressions, expensive or
// invalid CEL, defaults of the wrong type, thousands of properties), custom objects sent to such CRDs, patches,
// scale bodies and CRD updates. The suite creates `extensionFixtures` first and waits for `extensionServed`.
import { deepJson, uniq, type HostileCase } from './hostile-cases.js';

export const XGROUP = 'hostile.example.com';
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
export const THINGS = `/apis/${XGROUP}/v1/namespaces/hostile/things`;
export const OPENS = `/apis/${XGROUP}/v1/namespaces/hostile/opens`;

const JSON_CT = { 'content-type': 'application/json' };
const MERGE_CT = { 'content-type': 'application/merge-patch+json' };
const SMP_CT = { 'content-type': 'application/strategic-merge-patch+json' };
const JSONPATCH_CT = { 'content-type': 'application/json-patch+json' };
const APPLY_CT = { 'content-type': 'application/apply-patch+yaml' };

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A CRD of XGROUP (or `group`) whose only version has `schema` (a JSON text, so keys such as __proto__ stay keys). */
function crdText(plural: string, kind: string, schemaText: string, extra: { version?: string; group?: string; scope?: string } = {}): string {
  const group = extra.group ?? XGROUP;
  return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"${plural}.${group}"},`
    + `"spec":{"group":"${group}","scope":"${extra.scope ?? 'Namespaced'}","names":{"plural":"${plural}","singular":"${plural.slice(0, -1)}","kind":"${kind}","listKind":"${kind}List"},`
    + `"versions":[{"name":"v1","served":true,"storage":true${extra.version ?? ''},"schema":{"openAPIV3Schema":${schemaText}}}]}}`;
}

const specSchema = (props: Json) => JSON.stringify({ type: 'object', properties: { spec: { type: 'object', properties: props } } });

const thingSchema = `{"type":"object","properties":{
  "spec":{"type":"object","x-kubernetes-validations":[{"rule":"!has(self.items) || self.items.all(i, i.size() <= 64)","message":"items too long"}],"properties":{
    "name":{"type":"string","pattern":"^(a+)+$","maxLength":4096},
    "color":{"type":"string","enum":["red","blue"]},
    "replicas":{"type":"integer","minimum":0},
    "items":{"type":"array","maxItems":10000,"items":{"type":"string"}},
    "list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string"}}}},
    "labels":{"type":"object","additionalProperties":{"type":"string"}},
    "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
    "__proto__":{"type":"string","default":"p"},
    "constructor":{"type":"object","default":{"prototype":{"polluted":"yes"}},"x-kubernetes-preserve-unknown-fields":true},
    "prototype":{"type":"integer","minimum":3}}},
  "status":{"type":"object","properties":{"replicas":{"type":"integer"},"selector":{"type":"string"}}}}}`.replace(/\n\s*/g, '');

/** The CRDs the suite creates before any case runs. */
export function extensionFixtures(): [string, string][] {
  const scale = ',"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas","labelSelectorPath":".status.selector"}},"selectableFields":[{"jsonPath":".spec.color"}]';
  return [
    [CRDS, crdText('things', 'Thing', thingSchema, { version: scale })],
    [CRDS, crdText('opens', 'Open', '{"type":"object","x-kubernetes-preserve-unknown-fields":true}')],
    [CRDS, crdText('mutables', 'Mutable', specSchema({ a: { type: 'string' } }))],
  ];
}

/** Paths that answer 200 once the fixtures' resources are served. */
export const extensionServed = [THINGS, OPENS, `/apis/${XGROUP}/v1/namespaces/hostile/mutables`];

let kinds = 0;
/** A hostile CRD create: a fresh plural and kind in its own group, so accepted ones do not conflict. */
function crdCase(name: string, schemaText: string, expectCode: number, expectMessage?: RegExp, extra: { version?: string } = {}): HostileCase {
  const n = ++kinds;
  return { name: `CRD with ${name}`, method: 'POST', path: CRDS, headers: JSON_CT, body: crdText(`xs${n}s`, `Xs${n}`, schemaText, { ...extra, group: 'schemas.example.com' }), expectCode, expectMessage, maxMs: 2_000 };
}

const nested = (depth: number, open: string, close: string, inner: string) => open.repeat(depth) + inner + close.repeat(depth);
const SCHEMA_PATH = 'spec\\.validation\\.openAPIV3Schema\\.properties\\[spec\\]';

export function crdSchemaCases(): HostileCase[] {
  const manyProps: Record<string, Json> = {};
  for (let i = 0; i < 5000; i++) manyProps[`f${i}`] = { type: 'string', pattern: `^f${i}-[a-z]+$` };
  const manyPatterns: Record<string, Json> = {};
  for (let i = 0; i < 800; i++) manyPatterns[`p${i}`] = { type: 'string', pattern: `^${i}(${'ab'.repeat(490)})+$` };
  const props = (text: string) => `{"type":"object","properties":{"spec":{"type":"object","properties":${text}}}}`;
  return [
    crdCase('properties named like Object members', props('{"__proto__":{"type":"string","default":"x"},"constructor":{"type":"object","x-kubernetes-preserve-unknown-fields":true},"prototype":{"type":"integer"},"hasOwnProperty":{"type":"string"},"toString":{"type":"boolean"}}'), 201),
    // Unknown keywords are dropped when the schema is decoded, __proto__ among them.
    crdCase('__proto__ as a schema keyword', '{"type":"object","__proto__":{"x-kubernetes-preserve-unknown-fields":true},"properties":{"spec":{"type":"object","constructor":{"type":"string"}}}}', 201),
    crdCase('a backtracking pattern', specSchema({ a: { type: 'string', pattern: '^(a+)+$' } }), 201),
    crdCase('an unclosed group', specSchema({ a: { type: 'string', pattern: '(a' } }), 422,
      new RegExp(`${SCHEMA_PATH}\\.properties\\[a\\]\\.pattern: Invalid value: "\\(a": must be a valid regular expression, but isn't: error parsing regexp: missing closing \\): \`\\(a\`$`)),
    crdCase('a lookahead (not RE2)', specSchema({ a: { type: 'string', pattern: '(?=a)b' } }), 422, /error parsing regexp: invalid or unsupported Perl syntax: `\(\?=`/),
    crdCase('a back-reference (not RE2)', specSchema({ a: { type: 'string', pattern: '(a)\\1' } }), 422, /error parsing regexp: invalid escape sequence: `\\1`/),
    crdCase('a repeat over 1000', specSchema({ a: { type: 'string', pattern: '((a{1000}){1000}){1000}' } }), 422, /error parsing regexp: invalid repeat count/),
    crdCase('a Go-only pattern ((?i), \\z)', specSchema({ a: { type: 'string', pattern: '(?i)^abc\\z' } }), 201),
    crdCase('a 100,000-character pattern', specSchema({ a: { type: 'string', pattern: 'a'.repeat(100_000) } }), 422, /properties\[a\]\.pattern: Too long: may not be more than 1024 bytes/),
    crdCase('800 patterns of 1,000 characters', specSchema(manyPatterns), 201),
    crdCase('a 100,000-value enum', specSchema({ a: { type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) } }), 201),
    crdCase('5,000 properties with patterns', specSchema(manyProps), 201),
    crdCase('a default of the wrong type', specSchema({ a: { type: 'integer', default: 'str' } }), 422, /properties\[a\]\.default: Invalid value: "string": .*must be of type integer/),
    crdCase('a plain default outside its enum, under a __proto__ property', specSchema(JSON.parse('{"__proto__":{"type":"string","enum":["a"],"default":"b"}}') as Json), 422, /properties\[__proto__\]\.default: Unsupported value: "b": supported values: "a"/),
    crdCase('a default that fails its pattern', specSchema({ a: { type: 'string', pattern: '^(a+)+$', default: `${'a'.repeat(40)}!` } }), 422, /properties\[a\]\.default: Invalid value/),
    crdCase('a default with __proto__ keys', props('{"m":{"type":"object","additionalProperties":{"type":"string"},"default":{"__proto__":"x","constructor":"y"}}}'), 201),
    crdCase('CEL that does not parse', specSchema({ a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self ==' }] } }), 422, /x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed/),
    crdCase('CEL of the wrong type', specSchema({ a: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self + 1' }] } }), 422, /x-kubernetes-validations\[0\]\.rule/),
    crdCase('CEL over its cost budget', specSchema({ a: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, self.all(z, x == y && y == z)))' }] } }), 422, /estimated rule cost exceeds budget/),
    crdCase('CEL with a backtracking regex', specSchema({ a: { type: 'string', maxLength: 10000, 'x-kubernetes-validations': [{ rule: "self.matches('^(a+)+$')" }] } }), 201),
    crdCase('CEL find with an RE2 flag group', specSchema({ a: { type: 'string', maxLength: 100, 'x-kubernetes-validations': [{ rule: "self.find('^(?i)[a-z]+(?s:.)') != ''" }] } }), 201),
    crdCase('CEL findAll with a backtracking regex on an unbounded string', specSchema({ a: { type: 'string', 'x-kubernetes-validations': [{ rule: "self.findAll('(a|aa)+$').size() < 10" }] } }), 201),
    // matches() reads its pattern when it runs (upstream: "invalid matches argument" on objects).
    crdCase('CEL matches with an invalid regex', specSchema({ a: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: "self.matches('(a')" }] } }), 422, /error parsing regexp: missing closing \)/),
    crdCase('CEL naming __proto__', props('{"__proto__":{"type":"string","maxLength":10,"x-kubernetes-validations":[{"rule":"self.__proto__ == 1"}]}}'), 422),
    crdCase('properties 250 deep', `{"type":"object","properties":{"spec":${nested(250, '{"type":"object","properties":{"a":', '}}', '{"type":"string"}')}}}`, 201),
    crdCase('properties 400 deep', `{"type":"object","properties":{"spec":${nested(400, '{"type":"object","properties":{"a":', '}}', '{"type":"string"}')}}}`, 422, /must not be nested more than 300 levels deep/),
    crdCase('items 400 deep', `{"type":"object","properties":{"spec":${nested(400, '{"type":"array","items":', '}', '{"type":"string"}')}}}`, 422),
    crdCase('properties 4,000 deep', `{"type":"object","properties":{"spec":${nested(4000, '{"type":"object","properties":{"a":', '}}', '{"type":"string"}')}}}`, 400),
    crdCase('allOf 400 deep', `{"type":"object","properties":{"spec":{"type":"object",${nested(400, '"allOf":[{', '}]', '"maxProperties":1')}}}}`, 201),
    crdCase('not 900 deep', `{"type":"object","properties":{"spec":{"type":"object",${nested(900, '"not":{', '}', '"maxProperties":1')}}}}`, 201),
    crdCase('a default 900 deep', `{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"default":${deepJson(900)}}}}`, 201),
    crdCase('a body 20,000 deep', `{"type":"object","x":${deepJson(20_000)}}`, 400),
  ];
}

const thing = (spec: string, name = uniq('thing')) => `{"apiVersion":"${XGROUP}/v1","kind":"Thing","metadata":{"name":"${name}"},"spec":${spec}}`;
const open = (rest: string, name = uniq('open')) => `{"apiVersion":"${XGROUP}/v1","kind":"Open","metadata":{"name":"${name}"}${rest}}`;

export function customObjectCases(): HostileCase[] {
  const post = (name: string, path: string, body: string, expectCode: number, expectMessage?: RegExp): HostileCase => ({ name, method: 'POST', path, headers: JSON_CT, body, expectCode, expectMessage, maxMs: 2_000 });
  const out: HostileCase[] = [
    post('a string that makes ^(a+)+$ backtrack', THINGS, thing(`{"name":"${'a'.repeat(4000)}!"}`), 422, /spec\.name in body should match '\^\(a\+\)\+\$'/),
    post('a string that matches ^(a+)+$', THINGS, thing(`{"name":"${'a'.repeat(4000)}"}`), 201),
    post('Object member names as fields', THINGS, thing('{"__proto__":"q","constructor":{"prototype":{"x":1}},"prototype":5,"toString":"x","hasOwnProperty":1,"valueOf":{}}'), 201),
    post('prototype under its minimum', THINGS, thing('{"prototype":1}'), 422, /spec\.prototype: Invalid value: 1: spec\.prototype in body should be greater than or equal to 3/),
    post('__proto__ of the wrong type', THINGS, thing('{"__proto__":{"finalizers":["x"]}}'), 422, /spec\.__proto__: Invalid value: "object": spec\.__proto__ in body must be of type string/),
    post('__proto__ in a map, in metadata and at the root', THINGS, `{"apiVersion":"${XGROUP}/v1","kind":"Thing","metadata":{"name":"${uniq('thing')}","__proto__":{"finalizers":["x"]}},"spec":{"labels":{"__proto__":"a","constructor":"b"}},"__proto__":{"x":1}}`, 201),
    post('10,000 items (at maxItems)', THINGS, thing(JSON.stringify({ items: Array.from({ length: 10_000 }, () => 'x') })), 201),
    post('10,001 items', THINGS, thing(JSON.stringify({ items: Array.from({ length: 10_001 }, () => 'x') })), 422, /spec\.items: Too many: 10001: must have at most 10000 items/),
    post('an item failing the CEL rule', THINGS, thing(JSON.stringify({ items: ['x'.repeat(65)] })), 422, /spec: Invalid value: items too long/),
    post('50,000 list items of the wrong type', THINGS, thing(JSON.stringify({ list: Array.from({ length: 50_000 }, () => ({ x: 1 })) })), 422),
    post('200,000 free-form numbers', THINGS, thing(JSON.stringify({ free: { a: Array.from({ length: 200_000 }, () => 1) } })), 201),
    post('a wrong enum value', THINGS, thing('{"color":"green"}'), 422, /spec\.color: Unsupported value: "green": supported values: "red", "blue"/),
    post('spec of the wrong type', THINGS, thing('"str"'), 422),
    post('a status on create (dropped)', THINGS, thing('{}').replace('"spec":{}', '"spec":{},"status":{"__proto__":{"x":1},"replicas":"x"}'), 201),
    post('a kind that is not the CRD\'s', THINGS, thing('{}').replace('"kind":"Thing"', '"kind":"Other"'), 400),
    post('another group\'s apiVersion', THINGS, thing('{}').replace(`"${XGROUP}/v1"`, '"apps/v1"'), 400),
  ];
  for (const d of [100, 990, 997, 1001, 5000, 9998, 10_001]) {
    // Object depth counts from the root: the object, spec, then `d` levels under it.
    const stored = d + 2 <= 1000;
    const decoded = d + 2 <= 10_000;
    const code = stored ? 201 : 400;
    out.push(post(`a free-form field ${d} deep`, THINGS, thing(`{"free":{"a":${deepJson(d)}}}`), decoded ? code : 400));
    out.push(post(`an unknown field ${d} deep (pruned)`, THINGS, thing(`{"zz":${deepJson(d)}}`), d + 2 <= 10_000 ? 201 : 400));
    out.push(post(`an open object ${d} deep`, OPENS, open(`,"spec":${deepJson(d)}`), decoded ? code : 400));
    out.push(post(`an open array ${d} deep`, OPENS, open(`,"spec":${deepJson(d, 'array')}`), decoded ? code : 400));
  }
  out.push(post('an open object with Object member keys', OPENS, open(',"__proto__":{"x":1},"constructor":{"prototype":{"x":1}},"spec":{"__proto__":{"polluted":1},"prototype":{}}'), 201));
  return out;
}

export function customPatchCases(): HostileCase[] {
  const target = `${THINGS}/target`;
  const p = (name: string, headers: Record<string, string>, body: string, expectCode: number, path = target, expectMessage?: RegExp): HostileCase => ({ name, method: 'PATCH', path, headers, body, expectCode, expectMessage, maxMs: 2_000 });
  const applied = (spec: string) => `{"apiVersion":"${XGROUP}/v1","kind":"Thing","metadata":{"name":"target"},"spec":${spec}}`;
  return [
    p('strategic merge patch', SMP_CT, '{"spec":{"color":"red"}}', 415, target, /accepted media types include: application\/json-patch\+json, application\/merge-patch\+json, application\/apply-patch\+yaml$/),
    p('strategic merge patch of status', SMP_CT, '{"status":{"replicas":1}}', 415, `${target}/status`),
    p('strategic merge patch of scale', SMP_CT, '{"spec":{"replicas":1}}', 415, `${target}/scale`),
    p('merge patch with Object member keys', MERGE_CT, '{"__proto__":{"x":1},"spec":{"__proto__":"z","constructor":{"prototype":{"a":1}},"labels":{"__proto__":"v"}},"metadata":{"__proto__":{"finalizers":["x"]}}}', 200),
    p('merge patch setting a backtracking string', MERGE_CT, `{"spec":{"name":"${'a'.repeat(4000)}!"}}`, 422),
    p('merge patch 9,990 deep in a free-form field', MERGE_CT, `{"spec":{"free":{"a":${deepJson(9_990)}}}}`, 400),
    p('merge patch 10,001 deep', MERGE_CT, `{"spec":{"zz":${deepJson(10_001)}}}`, 400),
    p('merge patch 900 deep, pruned', MERGE_CT, `{"spec":{"zz":${deepJson(900)}}}`, 200),
    p('merge patch with a huge array', MERGE_CT, JSON.stringify({ spec: { free: { a: Array.from({ length: 100_000 }, (_, i) => i) } } }), 200),
    p('merge patch that is an array', MERGE_CT, '[1,2]', 400, target, /^Invalid JSON Patch$/),
    p('json patch adding __proto__', JSONPATCH_CT, '[{"op":"add","path":"/spec/__proto__","value":"w"},{"op":"add","path":"/spec/labels/constructor","value":"c"},{"op":"add","path":"/metadata/__proto__","value":{"finalizers":["x"]}}]', 200),
    p('json patch on __proto__ of a missing path', JSONPATCH_CT, '[{"op":"add","path":"/spec/nothing/__proto__/x","value":1}]', 422),
    // A missing member tests equal to null; an inherited toString is not a member.
    p('json patch test of a prototype member', JSONPATCH_CT, '[{"op":"test","path":"/spec/toString","value":null}]', 200),
    p('json patch test of a prototype member as a value', JSONPATCH_CT, '[{"op":"test","path":"/spec/constructor/prototype/polluted","value":"no"}]', 422),
    p('json patch replacing spec with a string', JSONPATCH_CT, '[{"op":"replace","path":"/spec","value":"s"}]', 422),
    p('json patch of 10,000 operations', JSONPATCH_CT, JSON.stringify(Array.from({ length: 10_000 }, (_, i) => ({ op: 'add', path: `/spec/labels/k${i}`, value: 'v' }))), 200),
    p('json patch moving into itself', JSONPATCH_CT, '[{"op":"move","from":"/spec","path":"/spec/free/x"}]', 422),
    p('apply without fieldManager', APPLY_CT, applied('{"color":"red"}'), 422),
    p('apply with Object member fields', { ...APPLY_CT }, applied('{"__proto__":"a","constructor":{"prototype":{"x":1}}}'), 200, `${target}?fieldManager=evil&force=true`),
    p('apply with an unknown field', APPLY_CT, applied('{"unknownThing":1}'), 400, `${target}?fieldManager=evil2`, /\.spec\.unknownThing: field not declared in schema$/),
    p('apply with an unknown field, strict', APPLY_CT, applied('{"unknownThing":1}'), 400, `${target}?fieldManager=evil2&fieldValidation=Strict`),
    p('apply YAML with aliases', APPLY_CT, `apiVersion: ${XGROUP}/v1\nkind: Thing\nmetadata: {name: target}\nspec:\n  free: &a {x: [1, 2]}\n  labels: {k: v}\n`, 200, `${target}?fieldManager=yaml`),
    p('apply 250 deep in a free-form field', APPLY_CT, applied(`{"free":{"a":${deepJson(250)}}}`), 200, `${target}?fieldManager=deep&force=true`),
    p('apply 900 deep in a free-form field (past the YAML limit)', APPLY_CT, applied(`{"free":{"a":${deepJson(900)}}}`), 400, `${target}?fieldManager=deep`),
    p('status merge patch with Object member keys', MERGE_CT, '{"status":{"__proto__":{"x":1},"replicas":2},"spec":{"color":"blue"}}', 200, `${target}/status`),
  ];
}

export function customScaleCases(): HostileCase[] {
  const scale = `${THINGS}/target/scale`;
  const body = (spec: string, extra = '') => `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"target"${extra}},"spec":${spec}}`;
  const put = (name: string, b: string, expectCode: number, expectMessage?: RegExp): HostileCase => ({ name: `scale ${name}`, method: 'PUT', path: scale, headers: JSON_CT, body: b, expectCode, expectMessage });
  return [
    put('of 3', body('{"replicas":3}'), 200),
    put('of -1', body('{"replicas":-1}'), 422),
    put('of 2^31', body(`{"replicas":${2 ** 31}}`), 400),
    put('of 1.5', body('{"replicas":1.5}'), 400),
    put('of "3"', body('{"replicas":"3"}'), 400),
    put('of null', body('{"replicas":null}'), 400),
    put('with spec null', body('null'), 400),
    put('with spec a string', body('"x"'), 400),
    put('with Object member keys', body('{"replicas":2,"__proto__":{"x":1},"constructor":{"prototype":{"x":1}}}', ',"__proto__":{"finalizers":["x"]}'), 200),
    put('of another kind', body('{"replicas":2}').replace('"kind":"Scale"', '"kind":"Thing"'), 400),
    put('with a stale resourceVersion', body('{"replicas":2}', ',"resourceVersion":"1"'), 409),
    put('with a resourceVersion that is not a number', body('{"replicas":2}', ',"resourceVersion":"x"'), 400),
    put('that is not JSON', '{"spec":', 400),
    { name: 'scale merge patch', method: 'PATCH', path: scale, headers: MERGE_CT, body: '{"spec":{"replicas":4,"__proto__":{"x":1}}}', expectCode: 200 },
    { name: 'scale json patch', method: 'PATCH', path: scale, headers: JSONPATCH_CT, body: '[{"op":"replace","path":"/spec/replicas","value":5}]', expectCode: 200 },
    { name: 'scale json patch to a string', method: 'PATCH', path: scale, headers: JSONPATCH_CT, body: '[{"op":"replace","path":"/spec/replicas","value":"x"}]', expectCode: 400 },
    { name: 'scale of a missing object', method: 'GET', path: `${THINGS}/missing/scale`, expectCode: 404 },
    // Upstream answers 500 for the scale of an object without spec replicas (apiextensions' ScaleREST).
    { name: 'scale of an object without spec replicas', method: 'GET', path: `${THINGS}/noreplicas/scale`, expectCode: 500, expectMessage: /^Internal error occurred: the spec replicas field "\.spec\.replicas" does not exist$/ },
  ];
}

export function crdUpdateCases(): HostileCase[] {
  const m = `${CRDS}/mutables.${XGROUP}`;
  const p = (name: string, body: string, expectCode: number, expectMessage?: RegExp, path = m): HostileCase => ({ name: `CRD update: ${name}`, method: 'PATCH', path, headers: MERGE_CT, body, expectCode, expectMessage, maxMs: 2_000 });
  const version = (name: string, storage: boolean, served = true) => ({ name, served, storage, schema: { openAPIV3Schema: JSON.parse(specSchema({ a: { type: 'string' } })) as Json } });
  return [
    p('scope to Cluster', '{"spec":{"scope":"Cluster"}}', 422, /spec\.scope: Invalid value: "Cluster": field is immutable/),
    p('group', '{"spec":{"group":"other.example.com"}}', 422, /spec\.group: Invalid value: "other\.example\.com": field is immutable/),
    p('plural (name no longer plural.group)', '{"spec":{"names":{"plural":"others"}}}', 422, /spec\.names\.plural|metadata\.name/),
    p('no storage version', JSON.stringify({ spec: { versions: [version('v1', false)] } }), 422, /must have exactly one version marked as storage version/),
    p('a new storage version', JSON.stringify({ spec: { versions: [version('v1', false), version('v2', true)] } }), 200),
    p('dropping a stored version', JSON.stringify({ spec: { versions: [version('v2', true)] } }), 422, /status\.storedVersions\[0\]: Invalid value: "v1": missing from spec\.versions; v1 was previously a storage version/),
    p('storage version not served', JSON.stringify({ spec: { versions: [version('v1', false), version('v2', true, false)] } }), 200),
    p('Object member keys in names', '{"spec":{"names":{"__proto__":{"plural":"x"},"constructor":"y"}},"__proto__":{"x":1}}', 200),
    // A status write checks the accepted names only (upstream's ValidateUpdateCustomResourceDefinitionStatus), so
    // these stored versions are taken; the next case puts the real ones back for the main-resource writes after it.
    p('stored versions through status', '{"status":{"storedVersions":["v9","__proto__"]}}', 200, undefined, `${m}/status`),
    p('stored versions put back through status', '{"status":{"storedVersions":["v1","v2"]}}', 200, undefined, `${m}/status`),
    p('conditions through status', '{"status":{"conditions":[{"type":"__proto__","status":"True","lastTransitionTime":"2024-01-01T00:00:00Z"}],"acceptedNames":{"__proto__":{"kind":"X"},"kind":"Mutable","plural":"mutables"}}}', 200, undefined, `${m}/status`),
    p('a hostile schema in an update', JSON.stringify({ spec: { versions: [version('v1', false), { ...version('v2', true), schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string', pattern: '(?<=x)' } } } } } } }] } }), 422, /must be a valid regular expression/),
    { name: 'CRD update: strategic merge patch of a CRD', method: 'PATCH', path: m, headers: SMP_CT, body: '{"spec":{"names":{"shortNames":["mut"]}}}', expectCode: 200 },
    { name: 'CRD update: PUT without a resourceVersion', method: 'PUT', path: m, headers: JSON_CT, body: crdText('mutables', 'Mutable', specSchema({ a: { type: 'string' } })), expectCode: 422 },
  ];
}
