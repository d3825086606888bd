// x-kubernetes-validations: every rule the fixture CRDs ship compiles; objects pass or fail with upstream's
// messages, reasons and paths; transition rules, messageExpression, fieldPath and the cost limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { compileSchemaRules, validateRules, type CompiledRules } from '../../src/apiextensions/cel-rules.js';

const dir = join(process.cwd(), 'test/fixtures/crds');
type Json = Record<string, unknown>;

function schemaOf(file: string, kind?: string, version?: string): Json {
  for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
    const crd = doc.toJS() as { spec?: { names?: { kind?: string }; versions?: { name: string; schema?: { openAPIV3Schema?: Json } }[] } };
    if (!crd?.spec?.versions || (kind && crd.spec.names?.kind !== kind)) continue;
    const v = version ? crd.spec.versions.find((x) => x.name === version) : crd.spec.versions[0];
    if (v?.schema?.openAPIV3Schema) return v.schema.openAPIV3Schema;
  }
  throw new Error(`no schema in ${file}`);
}

function compiled(schema: Json): CompiledRules {
  const { errors, rules } = compileSchemaRules(schema);
  assert.deepEqual(errors, []);
  return rules;
}

test('every rule of the fixture CRDs compiles', () => {
  const expected: [string, string | undefined, string | undefined, number][] = [
    ['jobset.x-k8s.io_jobsets.yaml', undefined, undefined, 8],
    ['karpenter.sh_nodepools.yaml', undefined, undefined, 9],
    ['karpenter.sh_nodeclaims.yaml', undefined, undefined, 6],
    ['autoscaling.k8s.io_verticalpodautoscalers.yaml', 'VerticalPodAutoscaler', 'v1', 2],
    ['keda.sh_scaledobjects.yaml', undefined, undefined, 1],
    ['agents.x-k8s.io_sandboxes.yaml', undefined, 'v1beta1', 1],
  ];
  for (const [file, kind, version, min] of expected) {
    const { errors, rules } = compileSchemaRules(schemaOf(file, kind, version), 'spec.versions[0].schema.openAPIV3Schema');
    assert.deepEqual(errors, [], file);
    assert.ok(rules.ruleCount >= min, `${file}: ${rules.ruleCount} rules`);
  }
});

const jobset = (spec: Json) => ({ apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet', metadata: { name: 'js' }, spec });

test('JobSet: startupPolicy InOrder and dependsOn are mutually exclusive', () => {
  const rules = compiled(schemaOf('jobset.x-k8s.io_jobsets.yaml'));
  const jobs = [{ name: 'a', replicas: 1, template: {} }, { name: 'b', replicas: 1, template: {}, dependsOn: [{ name: 'a', status: 'Ready' }] }];
  assert.deepEqual(validateRules(rules, jobset({ replicatedJobs: jobs })), []);
  assert.deepEqual(validateRules(rules, jobset({ replicatedJobs: jobs.slice(0, 1), startupPolicy: { startupPolicyOrder: 'InOrder' } })), []);
  assert.deepEqual(validateRules(rules, jobset({ replicatedJobs: jobs, startupPolicy: { startupPolicyOrder: 'InOrder' } })), [
    { type: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: StartupPolicy and DependsOn APIs are mutually exclusive' },
  ]);
});

test('JobSet: failurePolicy is immutable (a transition rule, skipped on create)', () => {
  const rules = compiled(schemaOf('jobset.x-k8s.io_jobsets.yaml'));
  const before = jobset({ replicatedJobs: [{ name: 'a', template: {} }], failurePolicy: { maxRestarts: 1 } });
  const after = jobset({ replicatedJobs: [{ name: 'a', template: {} }], failurePolicy: { maxRestarts: 2 } });
  assert.deepEqual(validateRules(rules, after), []);
  assert.deepEqual(validateRules(rules, after, after), []);
  assert.deepEqual(validateRules(rules, after, before), [
    { type: 'FieldValueInvalid', field: 'spec.failurePolicy', message: 'Invalid value: Value is immutable' },
  ]);
});

test('Karpenter NodePool: restricted labels, budgets and requirements', () => {
  const rules = compiled(schemaOf('karpenter.sh_nodepools.yaml'));
  const pool = (labels: Json, extra: Json = {}) => ({
    apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'p' },
    spec: { template: { metadata: { labels }, spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [] } }, ...extra },
  });
  assert.deepEqual(validateRules(rules, pool({ team: 'a', 'karpenter.sh/capacity-type': 'spot' })), []);
  assert.deepEqual(validateRules(rules, pool({ 'karpenter.sh/nodepool': 'x' })), [
    { type: 'FieldValueInvalid', field: 'spec.template.metadata.labels', message: 'Invalid value: label "karpenter.sh/nodepool" is restricted' },
  ]);
  assert.deepEqual(validateRules(rules, pool({ 'kubernetes.io/hostname': 'x' })).map((e) => e.message), [
    'Invalid value: label "kubernetes.io/hostname" is restricted',
  ]);
  const budgets = validateRules(rules, pool({}, { disruption: { budgets: [{ nodes: '10%', schedule: '@daily' }] } }));
  assert.deepEqual(budgets, [{ type: 'FieldValueInvalid', field: 'spec.disruption.budgets', message: "Invalid value: 'schedule' must be set with 'duration'" }]);
});

const crd = (spec: Json): Json => ({ type: 'object', properties: { spec: { type: 'object', ...spec } } });

test('messageExpression, reason, fieldPath and the default message', () => {
  const rules = compiled(crd({
    properties: { replicas: { type: 'integer' }, name: { type: 'string' } },
    'x-kubernetes-validations': [
      { rule: 'self.replicas <= 10', messageExpression: "'replicas is ' + string(self.replicas)", reason: 'FieldValueForbidden', fieldPath: '.replicas' },
      { rule: "self.name != ''" },
      { rule: 'self.replicas > 0', message: 'must be positive', reason: 'FieldValueRequired' },
    ],
  }));
  assert.deepEqual(validateRules(rules, { spec: { replicas: 3, name: 'x' } }), []);
  assert.deepEqual(validateRules(rules, { spec: { replicas: 20, name: '' } }), [
    { type: 'FieldValueForbidden', field: 'spec.replicas', message: 'Forbidden: replicas is 20' },
    { type: 'FieldValueInvalid', field: 'spec', message: "Invalid value: failed rule: self.name != ''" },
  ]);
  assert.deepEqual(validateRules(rules, { spec: { replicas: 0, name: 'x' } }), [
    { type: 'FieldValueRequired', field: 'spec', message: 'Required value: must be positive' },
  ]);
});

test('scalar values are printed, transition rules see the correlated old value', () => {
  const rules = compiled(crd({
    properties: {
      name: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'Value is immutable' }] },
      size: { type: 'integer', 'x-kubernetes-validations': [{ rule: '!oldSelf.hasValue() || self >= oldSelf.value()', message: 'may not shrink', optionalOldSelf: true }, { rule: 'self < 100' }] },
      ports: {
        type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', properties: { name: { type: 'string' }, port: { type: 'integer' } }, 'x-kubernetes-validations': [{ rule: 'self.port == oldSelf.port', message: 'port is immutable' }] },
      },
    },
  }));
  assert.deepEqual(validateRules(rules, { spec: { name: 'a', size: 5 } }), []);
  assert.deepEqual(validateRules(rules, { spec: { name: 'b', size: 5 } }, { spec: { name: 'a', size: 6 } }), [
    { type: 'FieldValueInvalid', field: 'spec.name', message: 'Invalid value: "b": Value is immutable' },
    { type: 'FieldValueInvalid', field: 'spec.size', message: 'Invalid value: 5: may not shrink' },
  ]);
  assert.deepEqual(validateRules(rules, { spec: { size: 100 } }), [
    { type: 'FieldValueInvalid', field: 'spec.size', message: 'Invalid value: 100: failed rule: self < 100' },
  ]);
  const oldPorts = { spec: { ports: [{ name: 'b', port: 2 }, { name: 'a', port: 1 }] } };
  assert.deepEqual(validateRules(rules, { spec: { ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }, { name: 'c', port: 3 }] } }, oldPorts), []);
  assert.deepEqual(validateRules(rules, { spec: { ports: [{ name: 'a', port: 9 }] } }, oldPorts), [
    { type: 'FieldValueInvalid', field: 'spec.ports[0]', message: 'Invalid value: port is immutable' },
  ]);
});

test('compile errors name the rule on upstream paths', () => {
  const { errors } = compileSchemaRules(crd({
    properties: { a: { type: 'string' }, l: { type: 'array', items: { type: 'string' } } },
    'x-kubernetes-validations': [
      { rule: 'self.b == 1' },
      { rule: 'self.a' },
      { rule: '' },
      { rule: 'self.l.all(x, self.l.all(y, x.contains(y)))' },
    ],
  }));
  const base = 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations';
  assert.equal(errors.length, 4);
  assert.equal(errors[0].field, `${base}[0].rule`);
  assert.equal(errors[0].message, 'Invalid value: apiextensions.ValidationRule{Rule:"self.b == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field \'b\'\n | self.b == 1\n | ....^');
  assert.match(errors[1].message, /: cel expression must evaluate to a bool$/);
  assert.deepEqual(errors[2], { type: 'FieldValueRequired', field: `${base}[2].rule`, message: 'Required value: rule is not specified' });
  assert.equal(errors[3].type, 'FieldValueForbidden');
  assert.match(errors[3].message, /^Forbidden: estimated rule cost exceeds budget by factor of more than 100x \(try simplifying the rule/);
  // With bounds the same rule is affordable.
  const bounded = compileSchemaRules(crd({
    properties: { l: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 } } },
    'x-kubernetes-validations': [{ rule: 'self.l.all(x, self.l.all(y, x.contains(y)))' }],
  }));
  assert.deepEqual(bounded.errors, []);
});

test('a rule that runs out of budget stops validation', () => {
  const rules = compiled({
    type: 'object', 'x-kubernetes-preserve-unknown-fields': true,
    properties: { l: { type: 'array', maxItems: 1000, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x + y >= 0))' }] } },
  });
  // Within its maxItems the rule is affordable; schema validation would refuse the longer list, but the CEL
  // validator must stop on its own (1,200² iterations are past the per-call limit).
  const errs = validateRules(rules, { l: Array.from({ length: 1200 }, (_, i) => i) });
  assert.equal(errs.length, 1);
  assert.equal(errs[0].field, 'l');
  assert.match(errs[0].message, /^Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: /);
});
