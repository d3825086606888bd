// The constraint CRD Gatekeeper's simulated pods make from a ConstraintTemplate: a valid CRD (as the API validates
// it) with the framework's names, versions and schema; a name that is not the lower-cased kind makes none.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { defaultCrd, prepareCrdForCreate } from '../../src/apiextensions/crd-defaults.js';
import { validateCrd } from '../../src/apiextensions/crd-validation.js';
import { constraintCrdFor } from '../../src/kubelet/gatekeeper-constraint-crd.js';
import type { KObject } from '../../src/machinery/types.js';

type Json = Record<string, any>;

const fixture = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'ecosystem', 'gatekeeper', 'k8srequiredlabels_template.yaml');
const template = () => parse(readFileSync(fixture, 'utf8'), { maxAliasCount: 0 }) as KObject;

test('the k8srequiredlabels template makes a valid cluster-scoped CRD in constraints.gatekeeper.sh', () => {
  const { crd, error } = constraintCrdFor(template());
  assert.equal(error, undefined);
  const c = crd as Json;
  assert.equal(c.metadata.name, 'k8srequiredlabels.constraints.gatekeeper.sh');
  assert.equal(c.metadata.labels['gatekeeper.sh/constraint'], 'yes');
  assert.deepEqual(c.spec.names, { kind: 'K8sRequiredLabels', listKind: 'K8sRequiredLabelsList', plural: 'k8srequiredlabels', singular: 'k8srequiredlabels', categories: ['constraint', 'constraints'] });
  assert.equal(c.spec.scope, 'Cluster');
  assert.deepEqual(c.spec.versions.map((v: Json) => [v.name, v.served, v.storage]), [['v1beta1', true, true], ['v1alpha1', true, false]]);
  const spec = c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties;
  assert.deepEqual(spec.parameters, { type: 'object', properties: { labels: { type: 'array', items: { type: 'string' } } } });
  assert.equal(spec.enforcementAction.default, 'deny');
  assert.deepEqual(spec.match.properties.scope.enum, ['*', 'Cluster', 'Namespaced']);
  const copy = structuredClone(crd) as KObject;
  defaultCrd(copy);
  prepareCrdForCreate(copy);
  assert.deepEqual(validateCrd(copy, undefined), []);
});

test('a legacySchema template\'s parameters keep unknown fields at every open level', () => {
  const t = template() as Json;
  t.spec.crd.spec.validation = { legacySchema: true, openAPIV3Schema: { properties: { labels: { type: 'array' }, extra: { type: 'object' } } } };
  const params = (constraintCrdFor(t as KObject).crd as Json).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.parameters;
  assert.equal(params['x-kubernetes-preserve-unknown-fields'], true);
  assert.deepEqual({ ...params.properties.labels.items }, { 'x-kubernetes-preserve-unknown-fields': true });
  assert.equal(params.properties.extra['x-kubernetes-preserve-unknown-fields'], true);
});

test('a template whose name is not its lower-cased kind makes no CRD, and says why', () => {
  const t = template() as Json;
  t.metadata.name = 'required-labels';
  const { crd, error } = constraintCrdFor(t as KObject);
  assert.equal(crd, undefined);
  assert.match(error ?? '', /name "required-labels" is not equal to the lowercase of CRD's Kind: "k8srequiredlabels"/);
  t.spec.crd.spec.names = {};
  assert.match(constraintCrdFor(t as KObject).error ?? '', /no spec\.crd\.spec\.names\.kind/);
});

test('hostile templates: __proto__ keys stay data, deep schemas are bounded', () => {
  const t = template() as Json;
  let deep: Json = { type: 'object' };
  for (let i = 0; i < 500; i++) deep = { type: 'object', properties: { a: deep } };
  t.spec.crd.spec.validation = { legacySchema: true, openAPIV3Schema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"object"},"deep":' + JSON.stringify(deep) + '}}') };
  const params = (constraintCrdFor(t as KObject).crd as Json).spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.parameters;
  assert.equal(({} as Json).type, undefined);
  assert.ok(Object.prototype.hasOwnProperty.call(params.properties, '__proto__'));
});
