// CRD patterns with long literal runs are read with empty groups breaking the runs (the RE2 port's parser is
// quadratic in a run's length): the broken pattern must match exactly what the pattern as written matches, nothing
// may be inserted inside a class, an escape, a repeat count or a group's head, and errors keep Go's text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RE2JS } from '@bufbuild/re2';
import { brokenRuns, makeRegExp, regexpError } from '../../src/apiextensions/schema/regexp.js';

const run = (n: number, from = 'abcdefghijklmnopqrstuvwxyz0123456789') => Array.from({ length: n }, (_, i) => from[i % from.length]).join('');

test('short patterns and patterns without long runs are read as written', () => {
  for (const p of ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?$', `^${run(32)}$`, `(${run(20)}|${run(20)})+`]) assert.equal(brokenRuns(p), p);
});

test('long runs are broken every 32 characters, outside classes, escapes, repeat counts and group heads', () => {
  const long = run(100);
  const broken = brokenRuns(`^${long}$`);
  assert.equal(broken, `^${long.slice(0, 32)}(?:)${long.slice(32, 64)}(?:)${long.slice(64, 96)}(?:)${long.slice(96)}$`);
  const cases = [
    `^[${run(60)}]+$`, // a class is stepped over whole
    `^(?P<${run(40, 'abcdefgh')}>${run(10)})$`, // a group name
    `^a{1,${'9'.repeat(3)}}${run(40)}$`, // a repeat count
    `^\\x{${'0'.repeat(38)}41}${run(40)}$`,
    `^\\pL${run(70)}\\p{Greek}${run(70)}$`,
    `^(?i:${run(80)})[[:alpha:]${run(40)}]$`,
    `^${run(40)}\\Q${run(80)}\\E$`, // a quote stops the breaking
  ];
  for (const p of cases) {
    const b = brokenRuns(p);
    // What is inserted sits only between two plain characters.
    for (let i = b.indexOf('(?:)'); i >= 0; i = b.indexOf('(?:)', i + 1)) assert.match(`${b[i - 1]}${b[i + 4]}`, /^[a-z0-9]{2}$/, `${p} → ${b}`);
    const inClass = /\[[^\]]*\(\?:\)/.test(b);
    assert.equal(inClass, false, b);
  }
  assert.ok(brokenRuns(cases[6]!).endsWith(`\\Q${run(80)}\\E$`), 'nothing inside \\Q...\\E');
});

test('a broken pattern matches what the pattern as written matches', () => {
  const ab = 'ab'.repeat(490);
  const patterns = [`^7(${ab})+$`, `^(?i)${run(90)}x*$`, `^${run(50)}(${run(40)}|${run(45)})?${run(33)}$`, `${run(64)}[0-9]{2,3}${run(64)}`];
  const inputs = [`7${ab}`, `7${ab}${ab}`, `7${ab}a`, run(90).toUpperCase(), `${run(90)}xxx`, `${run(50)}${run(33)}`, `${run(50)}${run(40)}${run(33)}`, `${run(50)}${run(41)}${run(33)}`, `${run(64)}123${run(64)}`, `${run(64)}1${run(64)}`, ''];
  for (const p of patterns) {
    const asWritten = RE2JS.compile(p);
    const m = makeRegExp(p, 'u');
    for (const s of inputs) assert.equal(m.test(s), asWritten.test(s), `${p} on ${s.slice(0, 20)}…`);
  }
});

test('an invalid pattern with long runs keeps the error text of the pattern as written', () => {
  const p = `^${run(100)}(${run(40)}$`;
  assert.equal(regexpError(p), `error parsing regexp: missing closing ): \`${p}\``);
  assert.equal(regexpError(`^${run(100)}$`), undefined);
});
