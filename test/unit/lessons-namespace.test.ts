// A lesson's own namespace and objects against an in-memory API: it labels what it makes, removes only what carries
// its label, stops on a learner's object of the same name, and keeps its progress ConfigMap for the dashboard.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Json, LessonApi } from '../../src/lessons/lesson-api.js';
import { ensureLessonNamespace, LessonConflictError, lessonNamespace, resetLessonObjects } from '../../src/lessons/lesson-namespace.js';
import { LessonProgress } from '../../src/lessons/lesson-progress.js';
import type { Lesson } from '../../src/lessons/lesson-types.js';

/** Objects by path; a list path lists the objects under it, filtered by an equality label selector. */
class MemoryApi implements LessonApi {
  readonly objects = new Map<string, Json>();
  readonly writes: string[] = [];
  async get(path: string) {
    return this.objects.get(path);
  }
  async list(path: string) {
    const [base, query] = path.split('?');
    const sel = new URLSearchParams(query ?? '').get('labelSelector');
    const [k, v] = sel ? sel.split('=') : [];
    return [...this.objects].filter(([p]) => p.startsWith(`${base}/`) && !p.slice(base.length + 1).includes('/'))
      .map(([, o]) => o).filter((o) => !k || (o.metadata as Json & { labels?: Record<string, string> }).labels?.[k] === v);
  }
  async create(path: string, body: Json) {
    const name = (body.metadata as { name: string }).name;
    this.writes.push(`create ${path}/${name}`);
    this.objects.set(`${path}/${name}`, structuredClone(body));
    return body;
  }
  async patch(path: string, body: Json) {
    this.writes.push(`patch ${path}`);
    const o = this.objects.get(path)!;
    Object.assign(o.data as Json, (body as { data: Json }).data);
    return o;
  }
  async remove(path: string) {
    this.writes.push(`delete ${path}`);
    this.objects.delete(path);
  }
}

const deployments = '/apis/apps/v1/namespaces/lesson-demo/deployments';
const web = (labels: Record<string, string> = {}): Json => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', labels } });

describe('lesson namespaces and objects', () => {
  it('creates the namespace labelled as the lesson\'s once, and uses one the learner made as it is', async () => {
    const api = new MemoryApi();
    const said: string[] = [];
    assert.equal(await ensureLessonNamespace({ api, say: (l) => said.push(l) }, 'demo'), 'lesson-demo');
    assert.equal(await ensureLessonNamespace({ api, say: (l) => said.push(l) }, 'demo'), 'lesson-demo');
    assert.deepEqual(said, ['namespace/lesson-demo created']);
    assert.deepEqual((api.objects.get('/api/v1/namespaces/lesson-demo')!.metadata as Json).labels, { 'bonsai.dev/lesson': 'demo' });
    api.objects.set('/api/v1/namespaces/lesson-other', { metadata: { name: 'lesson-other' } });
    assert.equal(await ensureLessonNamespace({ api, say: () => undefined }, 'other'), 'lesson-other');
    assert.deepEqual(api.objects.get('/api/v1/namespaces/lesson-other'), { metadata: { name: 'lesson-other' } });
  });

  it('replaces its own objects, leaves others alone, and refuses to replace a learner\'s object of the same name', async () => {
    const api = new MemoryApi();
    const ctx = { api, say: () => undefined };
    api.objects.set(`${deployments}/old`, { metadata: { name: 'old', labels: { 'bonsai.dev/lesson': 'demo' } } });
    api.objects.set(`${deployments}/mine`, { metadata: { name: 'mine' } });
    await resetLessonObjects(ctx, 'demo', [{ listPath: deployments, body: web() }]);
    assert.deepEqual([...api.objects.keys()].sort(), [`${deployments}/mine`, `${deployments}/web`]);
    assert.deepEqual((api.objects.get(`${deployments}/web`)!.metadata as Json).labels, { 'bonsai.dev/lesson': 'demo' });
    // Again: its own web goes and comes back.
    await resetLessonObjects(ctx, 'demo', [{ listPath: deployments, body: web() }]);
    assert.ok(api.objects.has(`${deployments}/web`));
    // A learner's web: nothing deleted, nothing created.
    api.objects.set(`${deployments}/web`, { metadata: { name: 'web', labels: { app: 'web' } } });
    api.writes.length = 0;
    await assert.rejects(resetLessonObjects(ctx, 'demo', [{ listPath: deployments, body: web() }]), /deployment\.apps\/web exists and was not made by lesson demo/);
    assert.deepEqual(api.writes, []);
    assert.equal(lessonNamespace('demo'), 'lesson-demo');
  });
});

describe('lesson progress ConfigMap', () => {
  const lesson: Lesson = {
    name: 'demo', title: 'Lesson: demo', intro: [], outro: [], setup: async () => undefined,
    steps: [
      { heading: 'First', check: async () => ({ done: true }), ok: 'first done', hint: 'h1' },
      { check: async () => ({ done: true }), ok: 'continued', hint: 'h2' },
    ],
  };
  const path = '/api/v1/namespaces/lesson-demo/configmaps/lesson-progress';
  const doc = (api: MemoryApi) => JSON.parse((api.objects.get(path)!.data as Record<string, string>)['progress.json']) as Json;

  it('writes the steps\' states, only when they change', async () => {
    const api = new MemoryApi();
    const p = new LessonProgress(api, lesson);
    await p.started(0, ['kubectl get pods']);
    assert.deepEqual(doc(api), {
      lesson: 'demo', title: 'Lesson: demo', finished: false,
      steps: [
        { heading: 'First', instructions: ['kubectl get pods'], hint: 'h1', hinted: false, state: 'current' },
        { heading: 'continued', instructions: [], hint: 'h2', hinted: false, state: 'pending' },
      ],
    });
    const labels = (api.objects.get(path)!.metadata as Json).labels;
    assert.deepEqual(labels, { 'bonsai.dev/lesson-progress': 'true', 'bonsai.dev/lesson': 'demo' });
    await p.progress(0, '1/2 ready');
    await p.progress(0, '1/2 ready');
    await p.hinted(0);
    await p.done(0, 'pod a');
    await p.started(1, []);
    await p.done(1, undefined);
    await p.finished();
    assert.equal(api.writes.length, 7, 'one write per change: the repeated progress is not written');
    const last = doc(api);
    assert.equal(last.finished, true);
    assert.deepEqual((last.steps as Json[]).map((s) => [s.state, s.detail, s.hinted]), [['done', 'pod a', true], ['done', undefined, false]]);
  });

  it('leaves a lesson-progress ConfigMap it did not make alone, and survives failed writes', async () => {
    const api = new MemoryApi();
    api.objects.set(path, { metadata: { name: 'lesson-progress' }, data: { 'progress.json': 'mine' } });
    await new LessonProgress(api, lesson).started(0, []);
    assert.equal((api.objects.get(path)!.data as Json)['progress.json'], 'mine');
    await new LessonProgress({} as LessonApi, lesson).started(0, []);
  });
});
