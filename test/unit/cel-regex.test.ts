// CEL regular expressions are RE2 with Go's semantics, flags included: `matches` (member and global forms), and
// Kubernetes' `find` and `findAll` (leftmost-first matches, Go's FindAllString for empty matches), checked against
// what Go's regexp returns. Gateway API's GRPCRoute rule (a `(?i)` flag group JS RegExp refuses) compiles and holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { cel, celValue as value } from '../helpers/cel-value.js';
import { compileSchemaRules, validateRules } from '../../src/apiextensions/cel-rules.js';
import { compileRegex } from '../../src/cel/lib-regex.js';
import { Finder } from '../../src/cel/re2-find.js';

// Expected values are Go's (regexp.MatchString, FindString, FindAllString).
const table: [string, unknown][] = [
  [String.raw`'Foo.Bar_1'.matches(r'^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$')`, true],
  [String.raw`'foo-bar'.matches(r'^(?i)\.?[a-z_][a-z_0-9]*(\.[a-z_][a-z_0-9]*)*$')`, false],
  [String.raw`matches('v1.2.3', r'v1.[0-3].\d+')`, true],
  [String.raw`matches('v1.6.1', r'v1.[0-3].\d+')`, false],
  [`matches('foobar', 'foo.*')`, true],
  [`'ab'.matches('(?i:A)b')`, true],
  [`'aB'.matches('^(?i:A)b$')`, false],
  [String.raw`'a\nb'.matches('^a.b$')`, false],
  [String.raw`'a\nb'.matches('(?s)^a.b$')`, true],
  [String.raw`'x\nab'.matches('(?m)^ab$')`, true],
  [String.raw`'ab'.matches(r'\Aab\z')`, true],
  [`'ABC abc'.findAll('(?i)b')`, ['B', 'b']],
  [`'abcd'.find('a|ab')`, 'a'],
  [`'abcd'.find('ab|a')`, 'ab'],
  [`'<a><b>'.find('<.+?>')`, '<a>'],
  [`'<a><b>'.find('(?U)<.+>')`, '<a>'],
  [`'<a><b>'.find('<.+>')`, '<a><b>'],
  [`'aaa'.find('a*?')`, ''],
  [`'xyz'.findAll('')`, ['', '', '', '']],
  [`'abc'.findAll('b*')`, ['', 'b', '']],
  [`'baaab'.findAll('a*')`, ['', 'aaa', '']],
  [String.raw`'foo bar baz'.findAll(r'\bba\w')`, ['bar', 'baz']],
  [String.raw`'x\ny\nz'.findAll(r'(?m)^\w$')`, ['x', 'y', 'z']],
  [String.raw`'x\ny'.findAll(r'^\w')`, ['x']],
  [String.raw`'héllo wörld'.findAll(r'\p{L}+')`, ['héllo', 'wörld']],
  [`'😀x😀y'.findAll('.[xy]')`, ['😀x', '😀y']],
  [`'key=val'.find('(?P<k>[a-z]+)=')`, 'key='],
  [`'a1b2c3'.findAll('[0-9]', 2)`, ['1', '2']],
  [`'a1b2c3'.findAll('[0-9]', 0)`, []],
  [`'a1b2c3'.findAll('[0-9]', -1)`, ['1', '2', '3']],
  [`'abc'.find('x')`, ''],
  // A pattern that backtracks exponentially in a JS engine: RE2 is linear.
  [`'${'a'.repeat(40)}b a'.find('(a+)+$')`, 'a'],
  [`'${'a'.repeat(40)}b'.findAll('(a|aa)+c')`, []],
];

test('matches, find and findAll follow RE2 and Go', () => {
  for (const [expr, want] of table) assert.deepEqual(value(expr), want, expr);
});

test('a flag group JS refuses compiles; a pattern RE2 refuses fails the compile with Go\'s text', () => {
  assert.ok(cel.compile(String.raw`'a'.find(r'^(?i)\.?[a-z]')`, new Map(), 'regex-flags').ok);
  const bad = cel.compile(`'a'.matches('(?z)a')`, new Map(), 'regex-flags');
  assert.ok(!bad.ok);
  assert.match(bad.error, /error parsing regexp: invalid or unsupported Perl syntax: `\(\?z`/);
  // A variable pattern is read when it runs: an unreadable one is an error value, not a crash.
  const p = cel.compile('matches(self, self)', new Map([['self', { k: 'string' } as const]]), 'regex-var');
  assert.ok(p.ok);
  const r = p.program.eval({ self: '(' });
  assert.ok(!r.ok && /error parsing regexp: missing closing \)/.test(r.error), !r.ok ? r.error : 'ok');
});

test("Gateway API GRPCRoute: the method's service rule compiles and holds", () => {
  const file = join(process.cwd(), 'test/fixtures/ecosystem/gateway.networking.k8s.io_grpcroutes.yaml');
  const crd = parseAllDocuments(readFileSync(file, 'utf8'))[0]!.toJS() as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } };
  const { errors, rules } = compileSchemaRules(crd.spec.versions[0]!.schema.openAPIV3Schema, 'spec.versions[0].schema.openAPIV3Schema');
  assert.deepEqual(errors, []);
  const route = (service: string) => ({
    apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GRPCRoute', metadata: { name: 'r' },
    spec: { rules: [{ matches: [{ method: { type: 'Exact', service, method: 'Get' } }] }] },
  });
  assert.deepEqual(validateRules(rules, route('Foo.v1.Bar')), []);
  assert.deepEqual(validateRules(rules, route('.foo.bar')), []);
  const refused = validateRules(rules, route('foo-bar'));
  assert.equal(refused.length, 1);
  assert.equal(refused[0]!.field, 'spec.rules[0].matches[0].method');
  assert.match(refused[0]!.message, /service must only contain valid characters/);
});

// Where RE2 and a JS RegExp agree by definition (no lookaround, no back-references, no repeated groups, ASCII; both pick the
// leftmost-first match), the match `find` takes must be the one JS finds: random patterns and strings, fixed seed.
test('find agrees with a JS RegExp on random patterns where the two engines coincide', () => {
  let seed = 20261203;
  const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n; };
  const atom = (d: number): string => {
    const k = rnd(d > 2 ? 5 : 9);
    if (k < 3) return 'abc'[k]!;
    if (k === 5) return `(${pat(d + 1)})`;
    if (k === 6) return `(?:${pat(d + 1)}|${pat(d + 1)})`;
    return ['[ab]', '.', '', '', '\\b', '[^a]'][k - 3]!;
  };
  // Groups go unrepeated: how a repeated group that can match empty iterates is where Perl-style engines and RE2 differ.
  const piece = (d: number) => { const a = atom(d); return a === '\\b' || a.startsWith('(') ? a : a + ['', '', '*', '+', '?', '*?', '+?', '??', '{1,2}'][rnd(9)]!; };
  const pat = (d: number): string => Array.from({ length: 1 + rnd(3) }, () => piece(d)).join('');
  let compared = 0;
  for (let i = 0; i < 3000; i++) {
    const flags = ['', 'i', 'm', 's', 'im', 'is', 'ms'][rnd(7)]!;
    const p = `${rnd(4) ? '' : '^'}${pat(0)}${rnd(4) ? '' : '$'}`;
    const s = Array.from({ length: rnd(12) }, () => 'abcAB \n'[rnd(7)]!).join('');
    const js = new RegExp(p, `g${flags}`);
    const finder = new Finder(compileRegex(flags ? `(?${flags})${p}` : p));
    for (let from = 0; from <= s.length; from++) {
      js.lastIndex = from;
      const m = js.exec(s);
      assert.deepEqual(finder.find(s, from), m ? [m.index, m.index + m[0].length] : undefined, `/${p}/${flags} in ${JSON.stringify(s)} from ${from}`);
      compared++;
    }
  }
  assert.ok(compared > 10_000);
});
