import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ScaledClock } from '../../src/util/clock.js';
import { maxClockMs, TimerHeap } from '../../src/util/clock-timers.js';
import { waitDeadline } from '../helpers/wait.js';

const origin = Date.UTC(2026, 0, 1);

test('timer heap: due order, then creation order; cancelled timers never fire', () => {
  const heap = new TimerHeap();
  const fired: string[] = [];
  heap.add(30, () => fired.push('c'));
  heap.add(10, () => fired.push('a1'));
  const cancel = heap.add(10, () => fired.push('x'));
  heap.add(10, () => fired.push('a2'));
  heap.add(20, () => fired.push('b'));
  cancel();
  assert.equal(heap.size, 4);
  heap.fireDue(10);
  assert.deepEqual(fired, ['a1', 'a2']);
  heap.fireDue(100);
  assert.deepEqual(fired, ['a1', 'a2', 'b', 'c']);
  assert.equal(heap.nextAt(), undefined);
});

test('timer heap: timers set while firing wait for the next call, even for the same instant', () => {
  const heap = new TimerHeap();
  const fired: number[] = [];
  heap.add(5, () => {
    fired.push(1);
    heap.add(5, () => fired.push(3));
  });
  heap.add(5, () => fired.push(2));
  assert.equal(heap.fireDue(5), 2);
  assert.deepEqual(fired, [1, 2]);
  assert.equal(heap.fireDue(5), 1);
  assert.deepEqual(fired, [1, 2, 3]);
});

test('timer heap: many cancellations are swept, and the order survives', () => {
  const heap = new TimerHeap();
  const cancels = Array.from({ length: 1000 }, (_, i) => heap.add(i, () => assert.fail('cancelled')));
  const fired: number[] = [];
  for (let i = 0; i < 10; i++) heap.add(500 - i, () => fired.push(500 - i));
  for (const c of cancels) c();
  assert.equal(heap.size, 10);
  heap.fireDue(1000);
  assert.deepEqual(fired, [491, 492, 493, 494, 495, 496, 497, 498, 499, 500]);
});

test('scaled clock: paused at speed 0, time stands still and timers wait', async () => {
  const clock = new ScaledClock(0, origin);
  assert.equal(clock.paused, true);
  assert.equal(clock.speed, 1);
  let fired = false;
  clock.setTimeout(() => (fired = true), 0);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(clock.nowMs(), origin);
  assert.equal(fired, false);
  clock.resume();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(fired, true);
  assert.ok(clock.nowMs() > origin);
  clock.stop();
});

test('scaled clock: a step fires due timers in due order, each seeing its own time, and stays paused', async () => {
  const clock = new ScaledClock(1, origin);
  // Paused first: timers set a millisecond apart on a running clock (a loaded machine) would fall due apart.
  clock.pause();
  const seen: Array<[string, number]> = [];
  clock.setTimeout(() => seen.push(['late', clock.nowMs() - origin]), 50_000);
  clock.setTimeout(() => seen.push(['early', clock.nowMs() - origin]), 10_000);
  clock.setTimeout(() => seen.push(['tie-1', clock.nowMs() - origin]), 20_000);
  clock.setTimeout(() => seen.push(['tie-2', clock.nowMs() - origin]), 20_000);
  clock.setInterval(() => seen.push(['every', clock.nowMs() - origin]), 25_000);
  // A timer set by a callback during the step, due within it, fires within it too, at its own time.
  clock.setTimeout(() => clock.setTimeout(() => seen.push(['chained', clock.nowMs() - origin]), 5_000), 30_000);
  const start = clock.nowMs();
  await clock.step(60_000);
  assert.equal(clock.paused, true);
  assert.equal(clock.nowMs(), start + 60_000);
  const rel = seen.map(([n, t]) => [n, t - (start - origin)]);
  assert.deepEqual(rel, [['early', 10_000], ['tie-1', 20_000], ['tie-2', 20_000], ['every', 25_000], ['chained', 35_000], ['late', 50_000], ['every', 50_000]]);
  clock.stop();
});

test('scaled clock: setSpeed re-times waiting timers; advance keeps a running clock running', async () => {
  const clock = new ScaledClock(1, origin);
  let fired = 0;
  clock.setTimeout(() => fired++, 60_000);
  clock.setSpeed(1_000_000);
  assert.equal(clock.speed, 1_000_000);
  const deadline = Date.now() + waitDeadline(2000);
  while (!fired && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  assert.equal(fired, 1);
  clock.setSpeed(1);
  const before = clock.nowMs();
  await clock.advance(3_600_000);
  assert.equal(clock.paused, false);
  assert.ok(clock.nowMs() >= before + 3_600_000);
  clock.setSpeed(0);
  assert.equal(clock.paused, true);
  assert.equal(clock.speed, 1);
  assert.throws(() => clock.setSpeed(-1), RangeError);
  assert.throws(() => clock.setSpeed(Number.NaN), RangeError);
  assert.throws(() => clock.setSpeed(Infinity), RangeError);
  clock.stop();
});

test('scaled clock: no overflow: huge, infinite and NaN delays, and advancing to the end of time', async () => {
  const clock = new ScaledClock(0, origin);
  let fired = 0;
  clock.setTimeout(() => fired++, Number.MAX_VALUE);
  clock.setTimeout(() => fired++, Infinity);
  clock.setTimeout(() => fired += 10, Number.NaN);
  const stopEvery = clock.setInterval(() => fired += 100, Number.NaN);
  assert.equal(clock.pending(), 2);
  await clock.step(1);
  assert.equal(fired, 110);
  // (An interval would fire every millisecond until the end of time.)
  stopEvery();
  await clock.advance(Number.MAX_VALUE);
  assert.equal(clock.nowMs(), maxClockMs);
  assert.ok(Number.isFinite(clock.now().getTime()));
  assert.equal(clock.status().now, new Date(maxClockMs).toISOString());
  clock.stop();
  assert.equal(clock.pending(), 0);
});

test('scaled clock: status shape', () => {
  const clock = new ScaledClock(2.5, origin);
  clock.pause();
  assert.deepEqual(Object.keys(clock.status()), ['mode', 'now', 'speed', 'paused']);
  assert.equal(clock.status().mode, 'scaled');
  assert.equal(clock.status().speed, 2.5);
  assert.equal(clock.status().paused, true);
  clock.stop();
});
