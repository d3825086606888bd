import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allowedByBudgets, allowedDisruptions, budgetActive, budgetNodes } from '../../src/addons/karpenter/disruption/budgets.js';
import { budgets, pool } from './karpenter-disruption-fixtures.js';

const at = (s: string) => Date.parse(s);

test('budget nodes: counts, and percentages of the pool rounded up', () => {
  assert.equal(budgetNodes('1', 10), 1);
  assert.equal(budgetNodes('0', 10), 0);
  assert.equal(budgetNodes('10%', 10), 1);
  assert.equal(budgetNodes('10%', 11), 2);
  assert.equal(budgetNodes('50%', 3), 2);
  assert.equal(budgetNodes('100%', 7), 7);
  assert.equal(budgetNodes('0%', 7), 0);
  assert.equal(budgetNodes('10%', 0), 0);
  assert.equal(budgetNodes('abc', 3), undefined);
  assert.equal(budgetNodes('101%', 3), undefined);
});

test('the most restrictive active budget applies per reason; a budget with reasons only limits those', () => {
  const p = pool('p', budgets({ nodes: '50%' }, { nodes: '3' }, { nodes: '1', reasons: ['Drifted'] }));
  assert.deepEqual(allowedByBudgets(p, 10, at('2026-01-01T12:00:00Z')), { Underutilized: 3, Empty: 3, Drifted: 1 });
  assert.deepEqual(allowedByBudgets(p, 4, at('2026-01-01T12:00:00Z')), { Underutilized: 2, Empty: 2, Drifted: 1 });
});

test('no budgets: the CRD default of 10%', () => {
  const p = pool('p');
  delete p.spec.disruption!.budgets;
  assert.deepEqual(allowedByBudgets(p, 25, 0), { Underutilized: 3, Empty: 3, Drifted: 3 });
});

test('nodes already being disrupted count against the budget, never below zero', () => {
  const p = pool('p', budgets({ nodes: '1' }));
  assert.deepEqual(allowedDisruptions(p, 5, 0, 0), { Underutilized: 1, Empty: 1, Drifted: 1 });
  assert.deepEqual(allowedDisruptions(p, 5, 1, 0), { Underutilized: 0, Empty: 0, Drifted: 0 });
  assert.deepEqual(allowedDisruptions(p, 5, 3, 0), { Underutilized: 0, Empty: 0, Drifted: 0 });
});

test('scheduled budgets are active from each schedule hit for their duration (UTC)', () => {
  const b = { nodes: '0', schedule: '0 9 * * *', duration: '8h' };
  assert.equal(budgetActive(b, at('2026-01-01T08:59:59Z')), false);
  assert.equal(budgetActive(b, at('2026-01-01T09:00:00Z')), true);
  assert.equal(budgetActive(b, at('2026-01-01T16:59:59Z')), true);
  assert.equal(budgetActive(b, at('2026-01-01T17:00:00Z')), false);
  assert.equal(budgetActive({ nodes: '0', schedule: '@daily', duration: '10m' }, at('2026-01-02T00:05:00Z')), true);
  assert.equal(budgetActive({ nodes: '0', schedule: '@daily', duration: '10m' }, at('2026-01-02T00:15:00Z')), false);
  // Business hours block everything, otherwise 100%.
  const p = pool('p', budgets({ nodes: '100%' }, b));
  assert.deepEqual(allowedByBudgets(p, 4, at('2026-01-01T10:00:00Z')), { Underutilized: 0, Empty: 0, Drifted: 0 });
  assert.deepEqual(allowedByBudgets(p, 4, at('2026-01-01T20:00:00Z')), { Underutilized: 4, Empty: 4, Drifted: 4 });
});

test('an invalid schedule or duration blocks (upstream treats it as an invariant violation)', () => {
  assert.equal(budgetActive({ nodes: '1', schedule: 'not a cron', duration: '1h' }, 0), 'invalid');
  assert.equal(budgetActive({ nodes: '1', schedule: '@daily', duration: 'forever' }, 0), 'invalid');
  const p = pool('p', budgets({ nodes: '100%' }, { nodes: '5', schedule: 'nope', duration: '1h' }));
  assert.deepEqual(allowedByBudgets(p, 10, 0), { Underutilized: 0, Empty: 0, Drifted: 0 });
});

test('hostile budgets never throw or reach Object.prototype', () => {
  const weird = pool('p', { budgets: JSON.parse('[null, 7, {"nodes": "1", "reasons": ["__proto__", "constructor", "Empty"]}, {"nodes": {"x": 1}}, {"nodes": "2", "schedule": "' + '* '.repeat(5000) + '", "duration": "1h"}, {"nodes": "3", "schedule": "@daily", "duration": 5}]') });
  const a = allowedByBudgets(weird, 10, at('2026-01-01T12:00:00Z'));
  assert.deepEqual(a, { Underutilized: 0, Empty: 0, Drifted: 0 });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(a), Object.prototype);
  const notAList = pool('p', JSON.parse('{"budgets": {"nodes": "1"}}'));
  assert.deepEqual(allowedByBudgets(notAList, 10, 0), { Underutilized: 1, Empty: 1, Drifted: 1 }, 'not a list: the default 10%');
});
