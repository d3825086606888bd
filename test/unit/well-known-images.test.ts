// What well-known images print at start, the pi Job's digits, and lines a runtime appends to a running container.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Harness, podSpec, start } from './kubelet-harness.js';
import { wellKnownOutput } from '../../src/kubelet/well-known-images.js';
import { maxPiDigits, perlBpiDigits, piDigits } from '../../src/kubelet/pi-digits.js';
import { appendContainerLog } from '../../src/kubelet/container-log-append.js';
import { logProvider } from '../../src/kubelet/log-provider.js';
import { clientFor } from '../../src/client/client.js';
import type { KObject } from '../../src/machinery/types.js';

test('pi: digits computed, bounded, from the documentation\'s perl command only', () => {
  assert.equal(piDigits(10), '3.141592654');
  assert.equal(piDigits(1), '3');
  assert.equal(piDigits(2000).length, 2001);
  assert.ok(piDigits(2000).endsWith('59958133904780275901'));
  assert.equal(piDigits(1e9).length, maxPiDigits + 1);
  assert.equal(perlBpiDigits(['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)']), 2000);
  assert.equal(perlBpiDigits(['/usr/bin/perl', '-Mbignum=bpi', '-wle', 'print bpi(12)']), 12);
  assert.equal(perlBpiDigits(['perl', '-wle', 'print 1']), undefined);
  assert.equal(perlBpiDigits(['python', '-Mbignum=bpi', 'print bpi(3)']), undefined);
});

test('well-known images print their start lines; a command of the pod replaces them', () => {
  const ctx = { hostname: 'kubernetes-bootcamp-abc-xyz', startMs: start };
  assert.deepEqual(wellKnownOutput('gcr.io/google-samples/kubernetes-bootcamp:v1', undefined, undefined, ctx),
    ['Kubernetes Bootcamp App Started At: 2026-01-01T12:00:00.000Z | Running On:  kubernetes-bootcamp-abc-xyz ', '']);
  assert.ok(wellKnownOutput('nginx:1.14.2', undefined, undefined, ctx)?.includes('2026/01/01 12:00:00 [notice] 1#1: start worker processes'));
  assert.ok(wellKnownOutput('redis', undefined, undefined, ctx)?.some((l) => l.endsWith('* Ready to accept connections tcp')));
  assert.equal(wellKnownOutput('nginx', ['sh', '-c', 'echo hi'], undefined, ctx), undefined);
  assert.equal(wellKnownOutput('example.com/app:v1', undefined, undefined, ctx), undefined);
  assert.deepEqual(wellKnownOutput('perl:5.34.0', ['perl', '-Mbignum=bpi', '-wle', 'print bpi(5)'], undefined, ctx), ['3.1416']);
});

test('the pi Job pod logs its digits; appended lines land in a running container\'s log and reach followers', async () => {
  const h = await Harness.start();
  try {
    await h.create(podSpec('pi', { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl:5.34.0', command: ['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)'] }] }));
    await h.create(podSpec('web', { containers: [{ name: 'web', image: 'nginx' }] }));
    await h.run(2000);
    assert.equal(h.pod('pi')?.status?.phase, 'Succeeded');
    const p = logProvider(h.reg)!;
    const read = (name: string) => {
      const r = p.read(h.pod(name) as KObject, name, false);
      assert.ok('lines' in r, JSON.stringify(r));
      return r.lines.map((l) => l.text);
    };
    assert.deepEqual(read('pi'), [piDigits(2000)]);
    const client = clientFor(h.reg);
    const before = read('web').length;
    const followed: string[] = [];
    const cancel = p.follow(h.pod('web') as KObject, 'web', before, (l) => followed.push(l.text), () => followed.push('<end>'));
    assert.equal(appendContainerLog(client, 'default', 'web', 'web', '10.244.0.1 - - "GET / HTTP/1.1" 200 615\n'), true);
    assert.equal(appendContainerLog(client, 'default', 'web', 'nope', 'x'), false);
    assert.equal(appendContainerLog(client, 'default', 'gone', 'web', 'x'), false);
    assert.equal(appendContainerLog(client, 'default', 'pi', 'pi', 'after the end'), false, 'a finished container prints nothing more');
    assert.deepEqual(read('web').slice(before), ['10.244.0.1 - - "GET / HTTP/1.1" 200 615']);
    assert.deepEqual(followed, ['10.244.0.1 - - "GET / HTTP/1.1" 200 615']);
    for (let i = 0; i < 6000; i++) appendContainerLog(client, 'default', 'web', 'web', `line ${i}`);
    const all = read('web');
    assert.equal(all.length, 5000, 'bounded');
    assert.equal(all.at(-1), 'line 5999');
    assert.equal(followed.at(-1), 'line 5999');
    assert.equal(followed.length, 6001, 'a follower sees every line once');
    cancel();
  } finally {
    h.close();
  }
});
