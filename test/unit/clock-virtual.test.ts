import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VirtualClock } from '../../src/util/clock.js';
import { waitDeadline } from '../helpers/wait.js';

const origin = Date.UTC(2026, 0, 1);
const until = (clock: VirtualClock, ms: number) => new Promise<number>((resolve) => clock.setTimeout(() => resolve(clock.nowMs()), ms));

test('virtual clock: an idle process jumps straight to the next timer', async () => {
  const clock = new VirtualClock({ start: origin });
  const at = await until(clock, 3_600_000);
  assert.equal(at, origin + 3_600_000);
  // A day of a 10 s interval: 8,640 jumps.
  let ticks = 0;
  const stopTicks = clock.setInterval(() => ticks++, 10_000);
  await until(clock, 86_400_000);
  stopTicks();
  assert.equal(ticks, 8640);
  clock.stop();
});

test('virtual clock: time stands still while callbacks are queued or a source is busy', async () => {
  const clock = new VirtualClock({ start: origin });
  let busy = true;
  clock.idle.add(() => busy);
  let fired = false;
  clock.setTimeout(() => (fired = true), 1000);
  // A chain of 200 immediates and a stretch of real time: the clock must not move meanwhile.
  await new Promise<void>((resolve) => {
    let n = 0;
    const step = () => {
      assert.equal(clock.nowMs(), origin);
      if (++n < 200) setImmediate(step);
      else resolve();
    };
    setImmediate(step);
  });
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(fired, false);
  assert.equal(clock.nowMs(), origin);
  busy = false;
  // (Waiting with immediates would be work the clock waits for: real timers are not.)
  const deadline = Date.now() + waitDeadline(2000);
  while (!fired && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
  assert.equal(fired, true);
  assert.equal(clock.nowMs(), origin + 1000);
  clock.stop();
});

test('virtual clock: same-instant timers fire by creation order, and the work of each instant settles first', async () => {
  const runOnce = async () => {
    const clock = new VirtualClock({ start: origin });
    const log: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      clock.setTimeout(() => {
        log.push(`${name}@${clock.nowMs() - origin}`);
        // Work started by a timer (promises, immediates) finishes before the clock moves.
        void Promise.resolve().then(() => setImmediate(() => log.push(`${name}-work@${clock.nowMs() - origin}`)));
      }, 500);
    }
    clock.setTimeout(() => log.push(`late@${clock.nowMs() - origin}`), 501);
    await until(clock, 10_000);
    clock.stop();
    return log;
  };
  const first = await runOnce();
  assert.deepEqual(first, ['a@500', 'b@500', 'c@500', 'a-work@500', 'b-work@500', 'c-work@500', 'late@501']);
  assert.deepEqual(await runOnce(), first);
});

test('virtual clock: paused, it moves only by advance/step, firing timers in order, and stays paused', async () => {
  const clock = new VirtualClock({ start: origin, paused: true });
  const seen: number[] = [];
  clock.setInterval(() => seen.push(clock.nowMs() - origin), 60_000);
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(seen, []);
  await clock.advance(300_000);
  assert.deepEqual(seen, [60_000, 120_000, 180_000, 240_000, 300_000]);
  assert.equal(clock.nowMs(), origin + 300_000);
  assert.equal(clock.paused, true);
  await clock.advance(30_000);
  assert.equal(clock.nowMs(), origin + 330_000);
  assert.equal(seen.length, 5);
  clock.resume();
  const at = await until(clock, 1);
  assert.equal(at, origin + 330_001);
  assert.throws(() => clock.setSpeed(), RangeError);
  assert.deepEqual(clock.status(), { mode: 'virtual', now: new Date(clock.nowMs()).toISOString(), speed: 0, paused: false });
  clock.stop();
});

test('virtual clock: stop drops the timers and the clock lets the process go', async () => {
  const clock = new VirtualClock({ start: origin });
  let fired = false;
  clock.setTimeout(() => (fired = true), 1000);
  clock.stop();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(fired, false);
  assert.equal(clock.pending(), 0);
  clock.setTimeout(() => (fired = true), 0);
  assert.equal(clock.pending(), 0);
  // Advancing a stopped clock resolves at once.
  await clock.advance(1000);
});
