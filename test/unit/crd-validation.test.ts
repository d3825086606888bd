import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { defaultCrd, prepareCrdForCreate, prepareCrdForUpdate } from '../../src/apiextensions/crd-defaults.js';
import { validateCrd } from '../../src/apiextensions/crd-validation.js';
import type { KObject } from '../../src/machinery/types.js';

const crds = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'crds');
const load = (file: string): KObject => parse(readFileSync(join(crds, file), 'utf8'), { maxAliasCount: 0 }) as KObject;

const schema = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' }, size: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } } } };

function base(): KObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { plural: 'widgets', kind: 'Widget' }, versions: [{ name: 'v1', served: true, storage: true, schema: structuredClone(schema) }] },
  } as KObject;
}

function create(mut: (c: Record<string, any>) => void): string[] {
  const crd = base();
  mut(crd);
  defaultCrd(crd);
  prepareCrdForCreate(crd);
  return validateCrd(crd, undefined).map((e) => `${e.field}: ${e.message}`);
}

const V1 = 'apiextensions.CustomResourceDefinitionVersion{Name:"v1", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), SelectableFields:[]apiextensions.SelectableField(nil)}';

const dns1035 = (v: string) => `Invalid value: "${v}": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`;

const cases: [string, (c: Record<string, any>) => void, string[]][] = [
  ['valid', () => {}, []],
  ['name must be plural.group', (c) => { c.metadata.name = 'widget.example.com'; }, ['metadata.name: Invalid value: "widget.example.com": must be spec.names.plural+"."+spec.group']],
  ['group without a dot', (c) => { c.spec.group = 'example'; c.metadata.name = 'widgets.example'; }, ['spec.group: Invalid value: "example": should be a domain with at least one dot']],
  ['group missing', (c) => { delete c.spec.group; c.metadata.name = 'widgets.'; }, ['spec.group: Required value']],
  ['bad scope', (c) => { c.spec.scope = 'Global'; }, ['spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']],
  ['no storage version', (c) => { c.spec.versions[0].storage = false; }, [
    `spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{${V1}}: must have exactly one version marked as storage version`,
    'status.storedVersions: Invalid value: []string(nil): must have at least one stored version',
  ]],
  ['bad version name', (c) => { c.spec.versions[0].name = 'V1'; }, [`spec.versions[0].name: ${dns1035('V1')}`, `spec.version: ${dns1035('V1')}`]],
  ['names', (c) => { c.spec.names = { plural: 'Widgets', kind: 'wid get', listKind: 'wid get', shortNames: ['w_'], categories: ['all'] }; c.metadata.name = 'Widgets.example.com'; }, [
    `spec.names.plural: ${dns1035('Widgets')}`,
    `spec.names.singular: ${dns1035('wid get')}`,
    `spec.names.kind: Invalid value: "wid get": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    `spec.names.listKind: Invalid value: "wid get": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
    `spec.names.shortNames[0]: ${dns1035('w_')}`,
    'spec.names.listKind: Invalid value: "wid get": kind and listKind may not be the same',
  ]],
  ['schema required', (c) => { delete c.spec.versions[0].schema; }, ['spec.versions[0].schema.openAPIV3Schema: Required value']],
  ['scale paths', (c) => { c.spec.versions[0].subresources = { status: {}, scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas', labelSelectorPath: '.metadata.labels' } }; }, [
    'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
    'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
    'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
  ]],
  ['scale path required', (c) => { c.spec.versions[0].subresources = { scale: { statusReplicasPath: '.status.replicas' } }; }, ['spec.subresources.scale.specReplicasPath: Required value']],
  ['printer columns', (c) => { c.spec.versions[0].additionalPrinterColumns = [{ name: 'A', type: 'text', jsonPath: '.spec.a' }, { name: '', type: 'string', format: 'uuid', jsonPath: 'spec.b' }, { name: 'C' }]; }, [
    'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[1].name: Required value',
    'spec.additionalPrinterColumns[1].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
    'spec.additionalPrinterColumns[1].JSONPath: Invalid value: "spec.b": must be a simple json path starting with .',
    'spec.additionalPrinterColumns[2].type: Required value: must be one of boolean,date,integer,number,string',
    'spec.additionalPrinterColumns[2].JSONPath: Required value',
  ]],
  ['selectable fields', (c) => { c.spec.versions[0].selectableFields = [{ jsonPath: '.spec.color' }, { jsonPath: '.spec.tags' }, { jsonPath: '.spec.nope' }, { jsonPath: 'spec.color' }, { jsonPath: '.spec.color' }, { jsonPath: '.metadata.name' }, {}]; }, [
    'spec.selectableFields[1].jsonPath: Invalid value: ".spec.tags": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
    'spec.selectableFields[2].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
    'spec.selectableFields[3].jsonPath: Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec',
    'spec.selectableFields[4].jsonPath: Duplicate value: ".spec.color"',
    'spec.selectableFields[5].jsonPath: Invalid value: ".metadata.name": is an invalid path: does not refer to a valid field',
    'spec.selectableFields[6].jsonPath: Required value',
  ]],
  ['too many selectable fields', (c) => {
    const props: Record<string, unknown> = {};
    for (let i = 0; i < 9; i++) props[`f${i}`] = { type: 'string' };
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties = props;
    c.spec.versions[0].selectableFields = Object.keys(props).map((k) => ({ jsonPath: `.spec.${k}` }));
  }, ['spec.selectableFields: Too many: 9: must have at most 8 items']],
  ['webhook conversion', (c) => { c.spec.conversion = { strategy: 'Webhook' }; }, [
    'spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook',
    'spec.conversion.conversionReviewVersions: Required value',
  ]],
  ['webhook conversion details', (c) => { c.spec.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://h/x?y=1' }, conversionReviewVersions: ['v2'] } }; }, [
    `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
    'spec.conversion.webhookClientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL',
    'spec.conversion.conversionReviewVersions: Invalid value: []string{"v2"}: must include at least one of v1, v1beta1',
  ]],
  ['bad strategy', (c) => { c.spec.conversion = { strategy: 'Magic' }; }, ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']],
  ['status root with extra fields', (c) => { c.spec.versions[0].subresources = { status: {} }; c.spec.versions[0].schema.openAPIV3Schema.type = 'array'; }, [
    'spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
  ]],
  ['nullable root', (c) => { c.spec.versions[0].schema.openAPIV3Schema.nullable = true; }, ['spec.validation.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root']],
  ['protected group', (c) => { c.spec.group = 'widgets.k8s.io'; c.metadata.name = 'widgets.widgets.k8s.io'; }, [
    'metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  ]],
  ['preserveUnknownFields', (c) => { c.spec.preserveUnknownFields = true; }, [
    'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
  ]],
];

for (const [name, mut, want] of cases) {
  test(`CRD validation: ${name}`, () => assert.deepEqual(create(mut), want));
}

test('two versions with different schemas validate per version; duplicates are reported', () => {
  const errs = create((c) => {
    const v2 = { name: 'v1', served: true, storage: false, schema: { openAPIV3Schema: { type: 'object', nullable: true } } };
    c.spec.versions.push(v2);
  });
  assert.equal(errs[0], 'spec.versions[1].schema.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root');
  assert.match(errs[1], /^spec\.versions: Invalid value: \[\]apiextensions\.CustomResourceDefinitionVersion\{.*Schema:\(\*apiextensions\.CustomResourceValidation\)\(0x[0-9a-f]+\).*\}: must contain unique version names$/);
});

test('the schema check is called with upstream paths', () => {
  const seen: string[] = [];
  const crd = base();
  defaultCrd(crd);
  prepareCrdForCreate(crd);
  const errs = validateCrd(crd, undefined, { checkSchema: (_s, path) => { seen.push(path); return [{ type: 'FieldValueRequired', field: `${path}.properties[spec].type`, message: 'Required value' }]; } });
  assert.deepEqual(seen, ['spec.validation.openAPIV3Schema']);
  assert.deepEqual(errs.map((e) => e.field), ['spec.validation.openAPIV3Schema.properties[spec].type']);
});

test('defaults', () => {
  const crd = base();
  defaultCrd(crd);
  assert.deepEqual((crd.spec as any).names, { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
  assert.deepEqual((crd.spec as any).conversion, { strategy: 'None' });
  assert.deepEqual((crd.status as any).storedVersions, ['v1']);
});

test('updates: immutable group and plural, storedVersions must stay listed, generation', () => {
  const old = base();
  defaultCrd(old);
  prepareCrdForCreate(old);
  (old.status as any).storedVersions = ['v1beta1', 'v1'];
  (old.status as any).conditions = [{ type: 'Established', status: 'True' }];
  const next = structuredClone(old);
  (next.spec as any).group = 'other.com';
  (next.spec as any).scope = 'Cluster';
  prepareCrdForUpdate(next, old);
  assert.equal(next.metadata.generation, 2);
  assert.deepEqual(validateCrd(next, old).map((e) => `${e.field}: ${e.message}`), [
    'spec.scope: Invalid value: "Cluster": field is immutable',
    'spec.group: Invalid value: "other.com": field is immutable',
    'status.storedVersions[0]: Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions',
  ]);
});

test('the JobSet and LeaderWorkerSet CRDs are valid', () => {
  for (const f of ['jobset.x-k8s.io_jobsets.yaml', 'leaderworkerset.x-k8s.io_leaderworkersets.yaml']) {
    const crd = load(f);
    defaultCrd(crd);
    prepareCrdForCreate(crd);
    assert.deepEqual(validateCrd(crd, undefined), [], f);
  }
});
