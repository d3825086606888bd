// Overloads real manifests call that were declared to the checker but missing at run time, or missing from the
// library: the global `matches(s, re)` (cel-spec lists both forms, as for `size`), Kubernetes' `ip.isCanonical`,
// and the semver library's `normalize` argument (version 1). Gateway API's safe-upgrades policy rule runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { cel, celValue as value } from '../helpers/cel-value.js';

test('both forms of the standard functions that have two: size and matches', () => {
  for (const [expr, want] of [
    ["matches('foobar', 'foo.*')", true], ["'foobar'.matches('foo.*')", true], ["matches('foobar', '^bar')", false],
    ["size('héllo')", 5n], ["'héllo'.size()", 5n], ['size([1, 2])', 2n], ['[1, 2].size()', 2n],
    ["size({'a': 1})", 1n], ["{'a': 1}.size()", 1n], ["size(b'ab')", 2n], ["b'ab'.size()", 2n],
  ] as const) assert.deepEqual(value(expr), want, expr);
  assert.equal(value('matches(self.v, self.p)', { self: { v: 'v1.2.3', p: 'v1\\.[0-3]' } }), true);
});

test('ip.isCanonical: canonical forms print as written', () => {
  for (const [s, want] of [
    ['127.0.0.1', true], ['2001:db8::abcd', true], ['2001:DB8::ABCD', false], ['2001:db8::0:0:0:abcd', false], ['::1', true],
  ] as const) assert.equal(value(`ip.isCanonical('${s}')`), want, s);
  const bad = cel.evaluate("ip.isCanonical('nope')");
  assert.ok(!bad.ok && /parse error during conversion from string/.test(bad.error));
});

test('semver and isSemver with normalize', () => {
  for (const [expr, want] of [
    ["isSemver('v1.0', true)", true], ["isSemver('v1.0')", false], ["isSemver('v1.0', false)", false],
    ["semver('v1.0.0', true) == semver('1.0.0')", true], ["semver('1.0', true).patch()", 0n],
    ["semver('01.01.01', true).minor()", 1n], ["isSemver('1.0-alpha', true)", false], ["isSemver('1.2.3-rc.1', true)", true],
    ["semver('v2.3.4-rc.1', true).isGreaterThan(semver('2.3.3'))", true],
  ] as const) assert.deepEqual(value(expr), want, expr);
});

test("Gateway API's safe-upgrades policy rules compile and run", () => {
  const file = join(process.cwd(), 'test/fixtures/ecosystem/gateway.networking.k8s.io_vap_safeupgrades.yaml');
  const policy = parseAllDocuments(readFileSync(file, 'utf8'))[0]!.toJS() as { spec: { validations: { expression: string }[] } };
  const crd = (version: string, channel = 'standard') => ({
    spec: { group: 'gateway.networking.k8s.io' },
    metadata: { annotations: { 'gateway.networking.k8s.io/bundle-version': version, 'gateway.networking.k8s.io/channel': channel } },
  });
  const run = (expr: string, object: unknown, oldObject: unknown = null) => {
    const r = cel.evaluate(expr, { object: cel.toCelValue(object, undefined), oldObject: cel.toCelValue(oldObject, undefined) });
    assert.ok(r.ok, !r.ok ? r.error : '');
    return cel.fromCel(r.value);
  };
  const [channel, version] = policy.spec.validations.map((v) => v.expression);
  assert.equal(run(version!, crd('v1.6.1')), true);
  assert.equal(run(version!, crd('v1.3.0')), false);
  assert.equal(run(version!, crd('v0.8.0')), false);
  assert.equal(run(channel!, crd('v1.6.1')), true);
  assert.equal(run(channel!, crd('v1.6.1', 'experimental'), crd('v1.6.1')), false);
});
