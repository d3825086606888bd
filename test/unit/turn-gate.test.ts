import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TurnGate } from '../../src/util/turn-gate.js';

test('turn gate: jobs run later, in order, with their results and errors', async () => {
  const gate = new TurnGate(1_000);
  const ran: number[] = [];
  const results = [
    gate.run(() => (ran.push(1), 'one')),
    gate.run(async () => (ran.push(2), 'two')),
    gate.run(() => {
      ran.push(3);
      throw new Error('thrown');
    }),
    gate.run(() => (ran.push(4), Promise.reject(new Error('rejected')))),
  ];
  assert.deepEqual(ran, [], 'nothing runs within the call');
  assert.equal(gate.waiting(), 4);
  const settled = await Promise.allSettled(results);
  assert.deepEqual(ran, [1, 2, 3, 4]);
  assert.deepEqual(settled.map((s) => (s.status === 'fulfilled' ? s.value : (s.reason as Error).message)), ['one', 'two', 'thrown', 'rejected']);
  assert.equal(gate.waiting(), 0);
});

/** Three jobs through `gate`; the first also queues `next turn` for the loop's next turn. */
async function threeJobs(gate: TurnGate, order: string[], prefix: string): Promise<void> {
  await Promise.all([
    gate.run(() => {
      order.push(`${prefix}1`);
      setImmediate(() => order.push('next turn'));
    }),
    gate.run(() => order.push(`${prefix}2`)),
    gate.run(() => order.push(`${prefix}3`)),
  ]);
}

test('turn gate: once a slice is spent, the loop turns before the next job', async () => {
  const order: string[] = [];
  // A slice of 0 ms runs one job a turn: what the first job queued for the next turn comes before the second job.
  await threeJobs(new TurnGate(0), order, 'a');
  assert.deepEqual(order, ['a1', 'next turn', 'a2', 'a3']);

  // A wide slice runs every waiting job in one turn.
  order.length = 0;
  await threeJobs(new TurnGate(60_000), order, 'b');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order, ['b1', 'b2', 'b3', 'next turn']);
});

test('turn gate: a job queued by a running job waits its turn behind the others', async () => {
  const gate = new TurnGate(60_000);
  const order: string[] = [];
  let inner: Promise<unknown> | undefined;
  await Promise.all([
    gate.run(() => {
      order.push('first');
      inner = gate.run(() => order.push('queued by first'));
    }),
    gate.run(() => order.push('second')),
  ]);
  await inner;
  assert.deepEqual(order, ['first', 'second', 'queued by first']);
});
