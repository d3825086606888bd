// The CEL engine: Kubernetes library functions, compile errors in cel-go's form, caching, and the run-time guard.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cel, celValue as value } from '../helpers/cel-value.js';

const table: [string, unknown][] = [
  ['[1, 2, 3].isSorted()', true],
  ['[3, 1].isSorted()', false],
  ['[1, 2, 3].sum()', 6n],
  ['[1.5, 2.5].sum()', 4],
  ['[3, 1, 2].min()', 1n],
  ['["b", "c", "a"].max()', 'c'],
  ['[1, 2, 1].indexOf(1)', 0n],
  ['[1, 2, 1].lastIndexOf(1)', 2n],
  ["'hello'.charAt(1)", 'e'],
  ["'hello'.indexOf('l')", 2n],
  ["'hello'.lastIndexOf('l')", 3n],
  ["'HeLLo'.lowerAscii()", 'hello'],
  ["'hello'.upperAscii()", 'HELLO'],
  ["'a-b-c'.replace('-', '+')", 'a+b+c'],
  ["'a,b'.split(',')", ['a', 'b']],
  ["'hello'.substring(1, 3)", 'el'],
  ["'  x '.trim()", 'x'],
  ["['a', 'b'].join('/')", 'a/b'],
  ["strings.quote('a\"b')", '"a\\"b"'],
  ["'abc123'.find('[0-9]+')", '123'],
  ["'a1b22c333'.findAll('[0-9]+')", ['1', '22', '333']],
  ["'a1b22c333'.findAll('[0-9]+', 2)", ['1', '22']],
  ["'abc'.find('x')", ''],
  ["'karpenter.sh/nodepool'.find('^([^/]+)')", 'karpenter.sh'],
  ["url('https://example.com:8080/a/b?x=1&x=2').getHost()", 'example.com:8080'],
  ["url('https://example.com:8080/a/b').getHostname()", 'example.com'],
  ["url('https://example.com:8080/a/b').getPort()", '8080'],
  ["url('https://example.com/a/b').getScheme()", 'https'],
  ["url('https://example.com/a/b?x=1').getEscapedPath()", '/a/b'],
  ["url('https://example.com/?x=1&x=2').getQuery()['x']", ['1', '2']],
  ["isURL('not a url')", false],
  ["ip('192.168.0.1').family()", 4n],
  ["ip('::1').family()", 6n],
  ["ip('127.0.0.1').isLoopback()", true],
  ["ip('10.0.0.1').isGlobalUnicast()", true],
  ["isIP('1.2.3')", false],
  ["string(ip('2001:db8:0:0:0:0:0:1'))", '2001:db8::1'],
  ["cidr('10.0.0.0/8').containsIP(ip('10.20.30.40'))", true],
  ["cidr('10.0.0.0/8').containsIP('11.0.0.1')", false],
  ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", true],
  ["cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8')", true],
  ["cidr('10.0.0.0/8').prefixLength()", 8n],
  ["isCIDR('10.0.0.0/33')", false],
  ["quantity('1Ki').asInteger()", 1024n],
  ["quantity('1.5Gi').asInteger()", 1610612736n],
  ["quantity('500m').isInteger()", false],
  ["quantity('500m').asApproximateFloat()", 0.5],
  ["quantity('1').compareTo(quantity('1000m'))", 0n],
  ["quantity('2').isGreaterThan(quantity('1500m'))", true],
  ["quantity('1').add(quantity('500m')) == quantity('1.5')", true],
  ["quantity('1').sub(2).sign()", -1n],
  ["isQuantity('10Mi')", true],
  ["isQuantity('10MiB')", false],
  ["format.dns1123Label().validate('my-name').hasValue()", false],
  ["format.dns1123Label().validate('My_Name').value().size() > 0", true],
  ["format.named('dns1035Label').value().validate('1abc').hasValue()", true],
  ["format.named('nope').hasValue()", false],
  ["semver('1.2.3').isLessThan(semver('1.10.0'))", true],
  ["semver('1.2.3').major()", 1n],
  ['optional.of(1).hasValue()', true],
  ['optional.none().orValue(7)', 7n],
  ['self.?a.orValue(0)', 1n],
  ['self.?missing.orValue(0)', 0n],
  ["self.m[?'k'].value()", 'v'],
  ['self.?m.?k.value()', 'v'],
  ['self.l.all(x, x > 0)', true],
  ['self.l.exists(x, x == 2)', true],
  ['self.l.exists_one(x, x > 1)', false],
  ['self.l.map(x, x * 10)', [10n, 20n, 30n]],
  ['self.l.filter(x, x % 2 == 1)', [1n, 3n]],
  ['has(self.a) && !has(self.zz)', true],
  ['self.a + 1 == 2', true],
  ['size(self.l)', 3n],
];

test('library functions: expression → value', () => {
  const self = { a: 1, l: [1, 2, 3], m: { k: 'v' } };
  for (const [expr, want] of table) {
    const got = value(expr, { self });
    assert.deepEqual(got instanceof Map ? Object.fromEntries(got) : got, want, expr);
  }
});

test('compile errors read like cel-go', () => {
  const r = cel.evaluate('self.a + nope', { self: cel.toCelValue({ a: 1 }, undefined) });
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.error, "ERROR: <input>:1:10: undeclared reference to 'nope' (in container '')\n | self.a + nope\n | .........^");
  const s = cel.evaluate('self.a +', { self: cel.toCelValue({}, undefined) });
  assert.match(!s.ok ? s.error : '', /^ERROR: <input>:1:\d+: Syntax error: /);
  const o = cel.evaluate("1 == 'a'");
  assert.match(!o.ok ? o.error : '', /found no matching overload for '_==_' applied to '\(int, string\)'/);
  const f = cel.evaluate('self.nosuchfn()', { self: cel.toCelValue({}, undefined) });
  assert.match(!f.ok ? f.error : '', /undeclared reference to 'nosuchfn'/);
});

test('typed declarations: undefined fields and the output type', () => {
  const vars = new Map([['self', cel.declType(cel.toSchemaView({ type: 'object', properties: { n: { type: 'integer' } } }))]]);
  const bad = cel.compile('self.m > 1', vars, 'typed-test');
  assert.equal(bad.ok, false);
  assert.match(!bad.ok ? bad.error : '', /undefined field 'm'/);
  const good = cel.compile('self.n > 1', vars, 'typed-test');
  assert.ok(good.ok && good.program.outputType.k === 'bool');
  assert.equal(cel.compile('self.n > 1', vars, 'typed-test'), good, 'a second compile is a cache hit');
});

test('run-time errors are messages', () => {
  const r = cel.evaluate('1 / 0 == 1');
  assert.equal(r.ok, false);
  assert.match(!r.ok ? r.error : '', /divide by zero/);
  assert.equal(cel.evaluate("quantity('x') == quantity('1')").ok, false);
});

test('a pathological expression is stopped by its counted cost', () => {
  const big = cel.toCelValue(Array.from({ length: 2000 }, (_, i) => i), undefined);
  const r = cel.evaluate('self.all(x, self.all(y, self.all(z, x + y + z >= 0)))', { self: big });
  assert.equal(r.ok, false);
  assert.ok(!r.ok && r.costExceeded, 'reported as over the cost limit');
  assert.match(!r.ok ? r.error : '', /actual cost limit exceeded/);
  // The error does not leak into the next evaluation.
  assert.equal(value('[1].all(x, x == 1)'), true);
});

test('a constant pattern that does not parse fails the compile (matches, find, findAll)', async () => {
  const { loadCel } = await import('../../src/cel/index.js');
  const e = await loadCel();
  for (const expr of ["'abc'.matches('(')", "'abc'.find('[a-')", "'abc'.findAll('(?<x')", "matches('abc', '(')"]) {
    const r = e.compile(expr, new Map(), 'regex-constants');
    assert.ok(!r.ok, expr);
    assert.match(r.error, /error parsing regexp: /, expr);
  }
  assert.ok(e.compile("'abc'.matches('^a+')", new Map(), 'regex-constants').ok);
});
