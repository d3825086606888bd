// OrderedConverter: events leave in arrival order whatever order their conversions finish in, no more than the
// limit run at once, lines wait their turn, and the first failure hands over what came before it and stops.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OrderedConverter, type ConvertedItem } from '../../src/api/watch-conversion.js';
import type { KObject } from '../../src/machinery/types.js';

const obj = (name: string): KObject => ({ apiVersion: 'x/v1', kind: 'X', metadata: { name } });
const names = (items: ConvertedItem[]) => items.map((i) => (Buffer.isBuffer(i) ? i.toString() : `${i.type}:${i.object.metadata.name}:${i.object.apiVersion}`));

function controlled() {
  const calls: Array<{ name: string; resolve: () => void; reject: (e: Error) => void }> = [];
  const convert = (o: KObject) => new Promise<KObject>((resolve, reject) => {
    calls.push({ name: o.metadata.name!, resolve: () => resolve({ ...o, apiVersion: 'x/v2' }), reject });
  });
  return { calls, convert };
}
const tick = () => new Promise((r) => setImmediate(r));

describe('OrderedConverter', () => {
  it('hands events over in order, at most maxInFlight converting at once', async () => {
    const { calls, convert } = controlled();
    const out: string[] = [];
    const c = new OrderedConverter(convert, 2, { ready: (items) => out.push(...names(items)), failed: () => assert.fail('no failure') });
    c.push('ADDED', obj('a'));
    c.push('MODIFIED', obj('b'));
    c.pushLine(Buffer.from('line'));
    c.push('DELETED', obj('c'));
    assert.deepEqual(calls.map((x) => x.name), ['a', 'b']);
    calls[1].resolve();
    await tick();
    assert.deepEqual(out, [], 'b waits for a');
    assert.deepEqual(calls.map((x) => x.name), ['a', 'b', 'c']);
    calls[2].resolve();
    await tick();
    assert.deepEqual(out, []);
    calls[0].resolve();
    await tick();
    assert.deepEqual(out, ['ADDED:a:x/v2', 'MODIFIED:b:x/v2', 'line', 'DELETED:c:x/v2']);
    assert.equal(c.size, 0);
    c.pushLine(Buffer.from('alone'));
    assert.deepEqual(out.at(-1), 'alone', 'a line with nothing before it leaves at once');
  });

  it('stops at the first failure, after the events before it', async () => {
    const { calls, convert } = controlled();
    const out: string[] = [];
    const failures: unknown[] = [];
    const c = new OrderedConverter(convert, 4, { ready: (items) => out.push(...names(items)), failed: (e) => failures.push(e) });
    for (const n of ['a', 'b', 'c']) c.push('ADDED', obj(n));
    calls[2].resolve();
    calls[1].reject(new Error('refused'));
    calls[0].resolve();
    await tick();
    assert.deepEqual(out, ['ADDED:a:x/v2']);
    assert.deepEqual(failures.map((e) => (e as Error).message), ['refused']);
    assert.equal(c.size, 0);
    c.push('ADDED', obj('d'));
    assert.equal(calls.length, 3, 'nothing more is converted');
  });
});
