// The static cost estimate sizes unbounded lists, maps and strings as upstream does (k8s.io/apiserver/pkg/cel/common
// schemas.go): from the smallest serialized item (an object counts its required properties without defaults), the
// longest enum value, a format's length, and maxLength in runes (4 bytes each). Kueue's Workload CRD, which a real
// API server accepts, compiles; a rule whose worst case does not fit is still refused with upstream's text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadCel } from '../../src/cel/index.js';
import { compileSchemaRules } from '../../src/apiextensions/cel-rules.js';

const cel = await loadCel();
const request = 3 * 1024 * 1024 - 2;
const typeOf = (schema: unknown) => cel.declType(cel.toSchemaView(schema));

test('bounds of unbounded lists, maps and strings follow their smallest items', () => {
  const condition = {
    type: 'object', required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
    properties: {
      type: { type: 'string', maxLength: 316 }, status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      lastTransitionTime: { type: 'string', format: 'date-time' }, reason: { type: 'string' }, message: { type: 'string' },
      observedGeneration: { type: 'integer' },
    },
  };
  // {} 2, "type":"" 10, "status":"" 12, "lastTransitionTime":<date-time 21> 43, "reason":"" 12, "message":"" 13.
  const list = typeOf({ type: 'array', items: condition });
  assert.ok(list.k === 'list');
  assert.equal(list.maxItems, Math.floor(request / (92 + 1)));
  const item = list.k === 'list' ? list.elem : undefined;
  assert.ok(item?.k === 'object');
  assert.deepEqual(item.k === 'object' && [item.fields.get('type'), item.fields.get('status'), item.fields.get('lastTransitionTime'), item.fields.get('reason')], [
    { k: 'string', maxLength: 316 * 4 }, { k: 'string', maxLength: 7 }, { k: 'string', maxLength: 32 }, { k: 'string', maxLength: request },
  ]);
  // A required property with a default may be left out of a request: it does not count.
  const defaulted = typeOf({ type: 'array', items: { type: 'object', required: ['n'], properties: { n: { type: 'integer', default: 1 } } } });
  assert.equal(defaulted.k === 'list' && defaulted.maxItems, Math.floor(request / 3));
  assert.equal(typeOf({ type: 'array', items: { type: 'boolean' } }).k === 'list' && (typeOf({ type: 'array', items: { type: 'boolean' } }) as { maxItems: number }).maxItems, Math.floor(request / 5));
  const map = typeOf({ type: 'object', additionalProperties: { type: 'string' } });
  assert.equal(map.k === 'map' && map.maxProperties, Math.floor(request / 8));
  const bounded = typeOf({ type: 'array', maxItems: 3, items: { type: 'string' } });
  assert.equal(bounded.k === 'list' && bounded.maxItems, 3);
});

test("Kueue's Workload CRD compiles: each rule's estimate is within the budget", () => {
  const file = join(process.cwd(), 'test/fixtures/ecosystem/kueue.x-k8s.io_workloads.yaml');
  const crd = parseAllDocuments(readFileSync(file, 'utf8'))[0]!.toJS() as { spec: { versions: { name: string; schema: { openAPIV3Schema: unknown } }[] } };
  for (const [i, v] of crd.spec.versions.entries()) {
    const { errors, rules } = compileSchemaRules(v.schema.openAPIV3Schema, `spec.versions[${i}].schema.openAPIV3Schema`);
    assert.deepEqual(errors, [], v.name);
    assert.ok(rules.ruleCount >= 14, `${v.name}: ${rules.ruleCount} rules`);
  }
});

test('an unbounded rule is still refused, with the factor upstream prints', () => {
  const schema = (items: unknown) => ({
    type: 'object',
    properties: { spec: { type: 'object', properties: { l: { type: 'array', items, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] } } } },
  });
  const refused = compileSchemaRules(schema({ type: 'string' })).errors;
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.type, 'FieldValueForbidden');
  assert.match(refused[0]!.message, /^Forbidden: estimated rule cost exceeds budget by factor of more than 100x \(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared\)$/);
  // Large items make the same rule affordable: few of them fit in a request.
  const big = { type: 'object', required: ['a'.repeat(5000)], properties: { ['a'.repeat(5000)]: { type: 'string' } } };
  assert.deepEqual(compileSchemaRules(schema(big)).errors.map((e) => e.message), []);
});
