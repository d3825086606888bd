// CEL cost is counted, never timed: the verdict of the cost limit depends only on the expression and the data,
// not on how fast the machine is; a separate wall-clock guard cancels with its own message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCel } from '../../src/cel/index.js';
import { costLimitExceeded, evaluationTimedOut, setTimeGuardMs } from '../../src/cel/budget.js';
import { compileSchemaRules, validateRules } from '../../src/apiextensions/cel-rules.js';

const cel = await loadCel();

/** Runs `fn` while `performance.now()` jumps `stepMs` at every read: a machine slowed down without bound. */
function withSlowClock<T>(stepMs: number, fn: () => T): T {
  const real = performance.now.bind(performance);
  let fake = real();
  performance.now = () => (fake += stepMs);
  try {
    return fn();
  } finally {
    delete (performance as { now?: unknown }).now;
  }
}

function withGuard<T>(ms: number, fn: () => T): T {
  const prev = setTimeGuardMs(ms);
  try {
    return fn();
  } finally {
    setTimeGuardMs(prev);
  }
}

const list = (n: number) => cel.toCelValue(Array.from({ length: n }, (_, i) => i), undefined);

test('the same expression gets the same verdict and cost however slow the clock runs', () => {
  const within = 'self.all(x, self.all(y, x + y >= 0))';
  const over = 'self.all(x, self.all(y, self.all(z, x + y + z >= 0)))';
  const self = list(200);
  const quiet = [cel.evaluate(within, { self }), cel.evaluate(over, { self })];
  // With the wall-clock guard disabled, a clock that jumps an hour at every read changes nothing.
  const slow = withGuard(Number.POSITIVE_INFINITY, () => withSlowClock(3_600_000, () => [cel.evaluate(within, { self }), cel.evaluate(over, { self })]));
  assert.ok(quiet[0].ok && slow[0].ok, 'within the limit on both');
  assert.equal(quiet[0].cost, slow[0].cost);
  assert.ok(quiet[0].cost > 40_000 && quiet[0].cost <= 1_000_000, `counted ${quiet[0].cost}`);
  for (const r of [quiet[1], slow[1]]) {
    assert.ok(!r.ok && r.costExceeded && !('timedOut' in r && r.timedOut), 'over the limit by count');
    assert.equal(!r.ok && r.error, costLimitExceeded);
  }
  assert.equal(quiet[1].cost, slow[1].cost, 'the same count at which it stopped');
});

test('the per-call limit is a count: a smaller limit stops the same expression at the same point every time', () => {
  const p = cel.compile('self.all(x, x >= 0)', new Map([['self', cel.declType(cel.toSchemaView({ type: 'array', items: { type: 'integer' } }))]]), 'cost-count');
  assert.ok(p.ok);
  const self = list(1000);
  const full = p.program.eval({ self });
  assert.ok(full.ok);
  const a = p.program.eval({ self }, Math.floor(full.cost / 2));
  const b = withGuard(Number.POSITIVE_INFINITY, () => withSlowClock(1_000, () => p.program.eval({ self }, Math.floor(full.cost / 2))));
  assert.ok(!a.ok && a.costExceeded && !b.ok && b.costExceeded);
  assert.equal(a.cost, b.cost);
  const c = p.program.eval({ self }, full.cost);
  assert.ok(c.ok, 'exactly its own cost is within the limit');
});

test('the wall-clock guard cancels with its own message, never as a cost verdict', () => {
  const r = withGuard(1, () => withSlowClock(1_000, () => cel.evaluate('self.all(x, self.all(y, x + y >= 0))', { self: list(200) })));
  assert.equal(r.ok, false);
  assert.ok(!r.ok && 'timedOut' in r && r.timedOut && !r.costExceeded);
  assert.equal(!r.ok && r.error, evaluationTimedOut);
  assert.doesNotMatch(evaluationTimedOut, /cost/);
  // The guard does not leak into the next evaluation.
  assert.ok(cel.evaluate('[1, 2].all(x, x > 0)').ok);
});

test('a valid object whose rule does real work is accepted on a slow machine when its count is within the limit', () => {
  const { errors, rules } = compileSchemaRules({
    type: 'object',
    properties: {
      items: {
        type: 'array', maxItems: 20_000, items: { type: 'string', maxLength: 16 },
        'x-kubernetes-validations': [{ rule: "self.all(x, x.size() <= 16 && x.startsWith('item-'))", message: 'items are item-N' }],
      },
    },
  });
  assert.deepEqual(errors, []);
  const obj = { items: Array.from({ length: 20_000 }, (_, i) => `item-${i}`) };
  // Each clock read takes 50 ms: the old 250 ms wall-clock "cost" refused this object; the count accepts it.
  assert.deepEqual(withSlowClock(50, () => validateRules(rules!, obj)), []);
  const bad = { items: [...obj.items.slice(0, 10), 'other'] };
  assert.equal(withSlowClock(50, () => validateRules(rules!, bad)).length, 1);
});
