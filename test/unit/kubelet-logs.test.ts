// pods/log served from the simulated containers: tail, since, timestamps, limitBytes, previous, follow, errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/api/server.js';
import { createLogger } from '../../src/util/logger.js';
import { Harness, podSpec, start } from './kubelet-harness.js';

async function withServer(fn: (h: Harness, get: (path: string) => Promise<{ status: number; text: string }>, app: FastifyInstance) => Promise<void>): Promise<void> {
  const h = await Harness.start();
  const app = buildServer({ reg: h.reg, log: createLogger('silent') });
  const get = async (path: string) => {
    const r = await app.inject({ method: 'GET', url: `/api/v1/namespaces/default/pods/${path}` });
    const text = r.headers['content-type']?.toString().startsWith('application/json') ? (JSON.parse(r.body) as { message: string }).message : r.body;
    return { status: r.statusCode, text };
  };
  try {
    await fn(h, get, app);
  } finally {
    await app.close();
    h.close();
  }
}

const ticker = (name: string, restartPolicy = 'Never') => podSpec(name, {
  restartPolicy, containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'for i in 1 2 3; do echo line $i; sleep 10; done'] }],
});

test('logs appear as the process prints them; tail, since, timestamps and limitBytes', () => withServer(async (h, get) => {
  await h.create(ticker('t'));
  assert.deepEqual(await get('t/log'), { status: 400, text: 'container "c" in pod "t" is waiting to start: ContainerCreating' });
  await h.run(1000);
  assert.equal((await get('t/log')).text, 'line 1\n');
  await h.run(10_000);
  assert.equal((await get('t/log')).text, 'line 1\nline 2\n');
  assert.equal((await get('t/log?tailLines=1')).text, 'line 2\n');
  assert.equal((await get('t/log?tailLines=0')).text, '');
  assert.equal((await get('t/log?sinceSeconds=5')).text, 'line 2\n');
  assert.equal((await get('t/log?limitBytes=8')).text, 'line 1\nl');
  const stamped = (await get('t/log?timestamps=true')).text;
  const startedAt = start + 50 + 200 + 100;
  assert.equal(stamped, `${new Date(startedAt).toISOString().replace('Z', '000000Z')} line 1\n${new Date(startedAt + 10_000).toISOString().replace('Z', '000000Z')} line 2\n`);
}));

test('previous shows the run before a restart; errors use the upstream texts', () => withServer(async (h, get) => {
  await h.create(podSpec('r', { containers: [{ name: 'c', image: 'busybox', imagePullPolicy: 'IfNotPresent', command: ['sh', '-c', 'echo run; exit 1'] }] }));
  await h.run(1000);
  assert.deepEqual(await get('r/log?previous=true'), { status: 200, text: 'run\n' });
  assert.equal((await get('r/log')).text, 'run\n');
  await h.create(podSpec('once', { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['true'] }] }));
  await h.run(1000);
  assert.deepEqual(await get('once/log?previous=true'), { status: 400, text: 'previous terminated container "c" in pod "once" not found' });
  await h.create(podSpec('two', { initContainers: [{ name: 'i', image: 'busybox', command: ['sleep', '100'] }], containers: [{ name: 'a', image: 'nginx' }, { name: 'b', image: 'nginx' }] }));
  assert.deepEqual(await get('two/log'), { status: 400, text: 'a container name must be specified for pod two, choose one of: [a b] or one of the init containers: [i]' });
  assert.deepEqual(await get('two/log?container=x'), { status: 400, text: 'container x is not valid for pod two' });
  await h.run(1000);
  assert.deepEqual(await get('two/log?container=a'), { status: 400, text: 'container "a" in pod "two" is waiting to start: PodInitializing' });
  await h.create({ metadata: { name: 'unbound' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
  assert.deepEqual(await get('unbound/log'), { status: 400, text: 'pod unbound does not have a host assigned' });
}));

test('follow streams lines as the clock reaches them and ends when the container stops', () => withServer(async (h, _get, app) => {
  await h.create(ticker('f'));
  await h.run(1000);
  const pending = app.inject({ method: 'GET', url: '/api/v1/namespaces/default/pods/f/log?follow=true' });
  await h.run(40_000);
  const r = await pending;
  assert.equal(r.statusCode, 200);
  assert.equal(r.body, 'line 1\nline 2\nline 3\n');
  assert.equal(h.pod('f')?.status?.phase, 'Succeeded');
}));
