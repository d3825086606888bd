// The lessons' HTTP client against a stub server: JSON in and out, 404 as "absent", Status messages as errors,
// merge patches, the kubeconfig's bearer token.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiRequestError, HttpLessonApi } from '../../src/lessons/lesson-api.js';

interface Seen { method: string; url: string; type?: string; auth?: string; body: string }

describe('lesson API client', () => {
  let server: Server;
  let base = '';
  const seen: Seen[] = [];
  before(async () => {
    server = createServer((req: IncomingMessage, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, type: req.headers['content-type'], auth: req.headers.authorization, body });
        const reply = (status: number, o: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(typeof o === 'string' ? o : JSON.stringify(o));
        };
        if (req.url === '/api/v1/nodes/missing') return reply(404, { kind: 'Status', message: 'nodes "missing" not found' });
        if (req.url === '/api/v1/nodes/forbidden') return reply(403, { kind: 'Status', message: 'nodes "forbidden" is forbidden: User "x" cannot get' });
        if (req.url === '/api/v1/nodes/text') return reply(200, 'not json');
        if (req.url?.startsWith('/api/v1/pods')) return reply(200, { kind: 'PodList', items: [{ metadata: { name: 'a' } }, 'junk', null] });
        reply(200, { kind: 'Node', metadata: { name: 'n' }, echo: body ? JSON.parse(body) : null });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  it('gets, lists, creates, patches and deletes with JSON and the bearer token', async () => {
    const api = new HttpLessonApi({ server: `${base}/`, token: 'tok' });
    assert.equal(api.server, `${base}/`, 'the server it talks to, for a lesson to point an add-on at');
    assert.equal(await api.get('/api/v1/nodes/missing'), undefined);
    assert.deepEqual(await api.list('/api/v1/pods?labelSelector=app%3Dweb'), [{ metadata: { name: 'a' } }], 'non-object items dropped');
    assert.deepEqual((await api.create('/api/v1/nodes', { kind: 'Node' })).echo, { kind: 'Node' });
    await api.patch('/api/v1/nodes/n', { spec: { unschedulable: true } });
    await api.remove('/api/v1/nodes/missing');
    await api.remove('/api/v1/pods/p', { gracePeriodSeconds: 0 });
    const patch = seen.find((s) => s.method === 'PATCH')!;
    assert.equal(patch.type, 'application/merge-patch+json');
    assert.equal(patch.url, '/api/v1/nodes/n');
    assert.ok(seen.every((s) => s.auth === 'Bearer tok'));
    const del = seen.filter((s) => s.method === 'DELETE').map((s) => JSON.parse(s.body));
    assert.deepEqual(del[1], { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background', gracePeriodSeconds: 0 });
  });

  it('turns error Statuses and non-JSON answers into errors; an unreachable server says so', async () => {
    const api = new HttpLessonApi({ server: base });
    await assert.rejects(api.get('/api/v1/nodes/forbidden'), (e: unknown) => e instanceof ApiRequestError && e.status === 403 && /is forbidden/.test(e.message));
    await assert.rejects(api.get('/api/v1/nodes/text'), /no JSON object/);
    const down = new HttpLessonApi({ server: 'http://127.0.0.1:1' });
    await assert.rejects(down.get('/api/v1/nodes'), /cannot reach the server at http:\/\/127\.0\.0\.1:1/);
  });
});
