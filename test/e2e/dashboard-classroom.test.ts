// The dashboard as a class uses it, in headless Chromium (Debian's /usr/bin/chromium through playwright-core)
// against a real `bonsai serve`: a colour legend and pods named on the map; readable units and clock; a deep link
// opening a pod's scheduling explanation, views and selections kept in the address (Back works); a Deployment's
// old and new ReplicaSets side by side during a rollout; a failed Job's reason; time travel to before a pod existed
// and the diff between two revisions; a node's taints whole and the pods they evict; the lesson panel turning a
// step green when its ConfigMap changes; and no request answered 404 along the way.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually } from '../helpers/kubectl.js';
import { noAddons, useKubectlServer } from '../helpers/cluster.js';
import { waitDeadline } from '../helpers/wait.js';
import { sqliteOnly } from '../helpers/etcd-process.js';

const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const wait = { timeout: waitDeadline(10_000) };

describe('web dashboard for a class', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '20', ...noAddons] });
  let browser: Browser;
  let page: Page;
  const missing: string[] = [];

  before(async () => {
    assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: .ci/run installs Debian's chromium`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('response', (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
  });
  after(async () => {
    await browser?.close();
  });

  const ui = (hash = '') => `${env.server.url}/ui/${hash}`;
  const newest = async () => {
    const r = await fetch(`${env.server.url}/bonsai/v1/history`);
    assert.equal(r.status, 200, 'GET /bonsai/v1/history');
    return ((await r.json()) as { newest: number }).newest;
  };
  const apply = (o: unknown) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(o) });
  const texts = (selector: string) => page.locator(selector).evaluateAll((els) => els.map((e) => e.textContent ?? ''));

  it('draws a colour legend and names the pods on the map (short names, without the template hash)', async () => {
    await page.goto(ui());
    await page.waitForFunction(() => document.querySelectorAll('[data-node][data-ready="True"]').length === 5, undefined, wait);
    const legend = await page.locator('[data-legend] [data-legend-item]').evaluateAll((els) => els.map((e) => e.getAttribute('data-legend-item')));
    assert.deepEqual(legend, ['running', 'unready', 'pending', 'failing', 'failed', 'succeeded', 'terminating']);
    await env.k.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2']);
    const web = '.node [data-pod^="default/web-"]';
    await page.waitForFunction((sel) => {
      const pods = [...document.querySelectorAll(sel)];
      return pods.length === 2 && pods.every((e) => e.classList.contains('running'));
    }, web, wait);
    const labels = await texts(web);
    for (const l of labels) assert.match(l, /^web-[a-z0-9]{5}$/, `pod label ${l}`);
  });

  it('shows CPU in cores, memory in Gi, a local clock without milliseconds and the speed, and labelled controls', async () => {
    const bars = await page.locator('[data-node="bonsai-worker-1"] .bar').evaluateAll((els) => els.map((e) => [e.querySelector('.bar-label')?.textContent, e.querySelector('.bar-text')?.textContent]));
    const cpu = bars.find(([l]) => l === 'CPU')?.[1] ?? '';
    const mem = bars.find(([l]) => l === 'Mem')?.[1] ?? '';
    assert.match(cpu, /^\d+(\.\d{1,2})?\/\d+(\.\d{1,2})?$/);
    assert.match(mem, /^(\d+(\.\d{1,2})?|<0\.01)\/\d+(\.\d{1,2})? Gi$/);
    const clock = await page.locator('.clock-now').textContent() ?? '';
    assert.match(clock, /\d{1,2}:\d{2}:\d{2}/);
    assert.doesNotMatch(clock, /T\d|Z$|\.\d{3}/);
    assert.equal(await page.locator('.clock-speed').textContent(), '×20');
    for (const action of ['clock-pause', 'clock-step', 'clock-speed']) assert.ok(await page.locator(`[data-action="${action}"]`).getAttribute('title'), `${action} has a tooltip`);
    assert.match(await page.locator('.clock').textContent() ?? '', /Advance .*s.*Step.*Speed ×.*Set/);
  });

  it('opens a deep link to a pod: its scheduling explanation; tabs close the panel and Back restores it', async () => {
    const pod = (await env.k.ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[0].metadata.name}'])).trim();
    const node = (await env.k.ok(['get', 'pod', pod, '-o', 'jsonpath={.spec.nodeName}'])).trim();
    await page.goto(ui(`#/scheduling/default/${pod}`));
    await page.locator(`aside [data-details-pod="default/${pod}"]`).waitFor(wait);
    await page.locator('[data-explain="Scheduled"]').waitFor(wait);
    assert.equal(await page.locator('tr.chosen').getAttribute('data-explain-node'), node);
    assert.match(await page.locator('aside').textContent() ?? '', /Requests: \d+(\.\d{1,2})? CPU, (\d+(\.\d{1,2})?|<0\.01) Gi memory/);
    await page.locator('[data-tab="events"]').click();
    await page.waitForFunction(() => location.hash === '#/events', undefined, wait);
    assert.equal(await page.locator('aside').count(), 0, 'the panel closes with the tab');
    await page.goBack();
    await page.locator(`aside [data-details-pod="default/${pod}"]`).waitFor(wait);
    assert.equal(await page.evaluate(() => location.hash), `#/scheduling/default/${pod}`);
    await page.locator('[data-node="bonsai-worker-2"] .node-head').click();
    await page.waitForFunction(() => location.hash === '#/map?node=bonsai-worker-2', undefined, wait);
    await page.reload();
    await page.locator('aside [data-details-node="bonsai-worker-2"]').waitFor(wait);
  });

  it("shows a Deployment's old and new ReplicaSets side by side during a rollout, conditions in a fixed order", async () => {
    await env.k.ok(['create', 'deployment', 'roll', '--image=nginx', '--replicas=3']);
    await eventually(async () => (await env.k.ok(['get', 'deployment', 'roll', '-o', 'jsonpath={.status.readyReplicas}'])).trim() === '3', 20_000, 'roll ready');
    // An unknown tag: the new ReplicaSet's pod cannot pull, so the rollout stays half-way (old 3 ready, new 0 of 1).
    await env.k.ok(['set', 'image', 'deployment/roll', 'nginx=nginx:nope']);
    await page.goto(ui('#/workloads'));
    const roll = '[data-workload="Deployment/default/roll"]';
    await page.waitForFunction((sel) => document.querySelectorAll(`${sel} [data-replicaset]`).length === 2, roll, wait);
    const sets = await page.locator(`${roll} [data-replicaset]`).evaluateAll((els) => els.map((e) => [e.getAttribute('data-revision'), e.className]));
    assert.deepEqual(sets, [['1', 'rs old'], ['2', 'rs new']]);
    await page.waitForFunction((sel) => {
      const ready = [...document.querySelectorAll(`${sel} [data-rs-ready]`)].map((e) => e.textContent);
      return ready[0] === '3/3 ready' && ready[1] === '0/1 ready';
    }, roll, wait);
    await page.waitForFunction((sel) => document.querySelector(`${sel} .rs.new [data-pod]`)?.classList.contains('failing') === true, roll, wait);
    assert.equal(await page.locator(`${roll} .rs.old [data-pod]`).count(), 3);
    const conds = await texts(`${roll} .conds .cond`);
    assert.deepEqual(conds.map((c) => c.split('=')[0]), ['Available', 'Progressing']);
  });

  it("names a failed Job's reason and its pods' exits", async () => {
    await apply({
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'fail', namespace: 'default' },
      spec: { backoffLimit: 1, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'exit 3'] }] } } },
    });
    const job = '[data-workload="Job/default/fail"]';
    await page.locator(`${job} [data-failed-reason="BackoffLimitExceeded"]`).waitFor(wait);
    assert.match(await page.locator(`${job} .failures`).textContent() ?? '', /2 pods ended: Error, exit 3/);
  });

  it('time travel: a pod before it existed did not exist yet; the diff lists an added object and a changed field', { skip: sqliteOnly('time travel reads the change log the SQLite store keeps') }, async () => {
    const from = await newest();
    await env.k.ok(['create', 'configmap', 'cfg', '--from-literal=a=1']);
    await env.k.ok(['scale', 'deployment', 'web', '--replicas=3']);
    await env.k.ok(['run', 'late', '--image=nginx']);
    const to = await newest();
    await page.goto(ui(`#/time-travel?rev=${from}&pod=default/late`));
    await page.locator(`.travel[data-revision="${from}"]`).waitFor(wait);
    assert.equal(await page.locator('aside [data-absent]').textContent(), `pod default/late did not exist yet at revision ${from}`);
    await page.goto(ui(`#/time-travel?rev=${to}`));
    await page.locator(`.travel[data-revision="${to}"]`).waitFor(wait);
    await page.locator('input.diff-from').fill(String(from));
    await page.locator('[data-action="diff"]').click();
    await page.waitForFunction((h) => location.hash === h, `#/time-travel?rev=${to}&diff=${from}`, wait);
    // The address alone restores the diff.
    await page.reload();
    await page.locator('[data-diff-ready="true"]').waitFor(wait);
    assert.equal(await page.locator('[data-diff-object="ConfigMap default/cfg"]').getAttribute('data-change'), 'added');
    assert.equal(await page.locator('[data-diff-object="Pod default/late"]').getAttribute('data-change'), 'added');
    const replicas = page.locator('[data-diff-object="Deployment default/web"] [data-diff-field="spec.replicas"]');
    assert.equal(await replicas.textContent(), 'spec.replicas: 2 → 3');
    await page.locator('[data-action="leave-travel"]').click();
    await page.waitForFunction(() => location.hash === '#/map', undefined, wait);
  });

  it("shows the lesson's steps beside the map and turns a step green when the lesson's ConfigMap changes", async () => {
    const progress = (states: string[], finished = false) => ({
      apiVersion: 'v1', kind: 'ConfigMap',
      metadata: { name: 'lesson-progress', namespace: 'default', labels: { 'bonsai.dev/lesson-progress': 'true' } },
      data: {
        'progress.json': JSON.stringify({
          lesson: 'first-steps', title: 'First steps', finished,
          steps: [
            { heading: 'Create a Deployment', instructions: ['kubectl create deployment hello --image=nginx'], hint: 'kubectl create deployment --help', state: states[0] },
            { heading: 'Scale it to three', instructions: ['kubectl scale deployment hello --replicas=3'], hint: 'replicas', state: states[1], detail: '1 of 3 ready' },
          ],
        }),
      },
    });
    // The lesson panel is the map's: the test before this one may have left the page elsewhere.
    await page.goto(ui('#/map'));
    await apply(progress(['current', 'pending']));
    const step = (i: number) => `.lesson [data-step="${i}"]`;
    await page.locator(`${step(0)}[data-state="current"]`).waitFor(wait);
    assert.match(await page.locator(step(0)).textContent() ?? '', /kubectl create deployment hello --image=nginx/);
    await page.locator(`${step(0)} [data-action="hint"]`).click();
    assert.equal(await page.locator(`${step(0)} .hint`).textContent(), 'Hint: kubectl create deployment --help');
    await apply(progress(['done', 'current']));
    await page.locator(`${step(0)}[data-state="done"]`).waitFor(wait);
    const mark = await page.locator(`${step(0)} .step-mark`).evaluate((e) => [e.textContent, getComputedStyle(e).backgroundColor]);
    assert.deepEqual(mark, ['✓', 'rgb(46, 158, 79)']);
    assert.match(await page.locator(step(1)).textContent() ?? '', /kubectl scale deployment hello --replicas=3.*1 of 3 ready/);
    await apply(progress(['done', 'done'], true));
    await page.locator('.lesson[data-finished="true"]').waitFor(wait);
    assert.equal(await page.locator('.lesson [data-state="done"]').count(), 2);
  });

  it('groups a waiting gang in the Pending queue: how many of its members are placed, and its pods', async () => {
    // Three pods of 4 GPUs in a gang of minCount 3: the one GPU node holds 8, so none is placed.
    await apply({ apiVersion: 'scheduling.k8s.io/v1alpha1', kind: 'Workload', metadata: { name: 'train', namespace: 'default' }, spec: { podGroups: [{ name: 'workers', policy: { gang: { minCount: 3 } } }] } });
    for (let i = 0; i < 3; i++) {
      await apply({
        apiVersion: 'v1', kind: 'Pod', metadata: { name: `train-${i}`, namespace: 'default' },
        spec: {
          workloadRef: { name: 'train', podGroup: 'workers' },
          tolerations: [{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }],
          containers: [{ name: 'c', image: 'busybox', resources: { limits: { 'nvidia.com/gpu': '4' } } }],
        },
      });
    }
    await page.goto(ui('#/map'));
    const gang = page.locator('[data-gang="default/train/workers"]');
    await gang.waitFor(wait);
    await page.waitForFunction(() => document.querySelectorAll('[data-gang="default/train/workers"] [data-pod]').length === 3, undefined, wait);
    assert.equal(await gang.getAttribute('data-placed'), '0');
    assert.equal(await gang.getAttribute('data-members'), '3');
    assert.match(await gang.locator('.gang-title').textContent() ?? '', /^gang train\/workers: 0 of 3 placed, waiting to be placed whole$/);
    await env.k.ok(['delete', 'pods', 'train-0', 'train-1', 'train-2', '--wait=false']);
    await env.k.ok(['delete', 'workload', 'train']);
    await page.waitForFunction(() => !document.querySelector('[data-gang="default/train/workers"]'), undefined, wait);
  });

  it("shows a node's taints whole and which of its pods a NoExecute taint evicts: now, after tolerationSeconds, never", async () => {
    const node = 'bonsai-worker-3';
    const pod = (name: string, tolerations: unknown[], finalizers?: string[]) => apply({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', ...(finalizers ? { finalizers } : {}) },
      spec: { nodeName: node, tolerations, containers: [{ name: 'c', image: 'nginx' }] },
    });
    // A finalizer keeps the evicted pod in view while it terminates (without one it is gone at once).
    await pod('no-toleration', [], ['example.com/hold']);
    await pod('for-an-hour', [{ key: 'class', operator: 'Equal', value: 'exam', effect: 'NoExecute', tolerationSeconds: 3600 }]);
    await pod('for-good', [{ key: 'class', operator: 'Exists' }]);
    await env.k.ok(['wait', '--for=condition=Ready', 'pod/no-toleration', 'pod/for-an-hour', 'pod/for-good', '--timeout=30s']);
    await page.goto(ui(`#/map?node=${node}`));
    await page.locator(`aside [data-details-node="${node}"]`).waitFor(wait);
    const long = 'example.com/a-rather-long-taint-key-for-the-class=with-an-equally-long-value:NoSchedule';
    await env.k.ok(['taint', 'node', node, 'class=exam:NoExecute', long]);
    const evicts = 'aside [data-taint="class=exam:NoExecute"] [data-evicts]';
    await page.waitForFunction((sel) => {
      const listed = [...document.querySelectorAll(sel)].map((e) => `${e.getAttribute('data-evicts')} ${e.getAttribute('data-when')}`);
      return listed.join(',') === 'default/no-toleration now,default/for-an-hour later';
    }, evicts, wait);
    // As the cluster has it: the first pod is being deleted, the one tolerating the taint for good stays.
    assert.ok((await env.k.ok(['get', 'pod', 'no-toleration', '-o', 'jsonpath={.metadata.deletionTimestamp}'])).trim());
    assert.equal((await env.k.ok(['get', 'pod', 'for-good', '-o', 'jsonpath={.spec.nodeName}'])).trim(), node);
    assert.match(await page.locator(`${evicts}[data-evicts="default/no-toleration"]`).textContent() ?? '', /^no-toleration being evicted/);
    const later = await page.locator(`${evicts}[data-evicts="default/for-an-hour"]`).textContent() ?? '';
    const m = /^for-an-hour evicted in (\d+)s, at \d{1,2}:\d{2}:\d{2}.*\(tolerates it for 3600s\)$/.exec(later);
    assert.ok(m, later);
    assert.ok(Number(m[1]) <= 3600 && Number(m[1]) > 1800, later);
    assert.match(await page.locator(`aside [data-taint="${long}"]`).textContent() ?? '', /keeps new pods that do not tolerate it off this node; pods already here stay/);
    // Whole, on the map too: every taint's full text, inside its box and not clipped.
    const onMap = await page.locator(`[data-node="${node}"] .taint`).evaluateAll((els) => els.map((e) => {
      const box = e.closest('.node')!.getBoundingClientRect();
      const r = e.getBoundingClientRect();
      return { text: e.textContent, clipped: e.scrollWidth > e.clientWidth || r.right > box.right || r.bottom > box.bottom };
    }));
    assert.deepEqual(onMap, [{ text: 'class=exam:NoExecute', clipped: false }, { text: long, clipped: false }]);
    await env.k.ok(['taint', 'node', node, 'class:NoExecute-', 'example.com/a-rather-long-taint-key-for-the-class:NoSchedule-']);
    await env.k.ok(['patch', 'pod', 'no-toleration', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers"}]']);
    await env.k.ok(['delete', 'pod', 'for-an-hour', 'for-good', '--wait=false']);
  });

  it('asked for nothing the server does not have (no 404 in the console)', async () => {
    assert.deepEqual(missing, []);
    // Headless Chromium asks for no /favicon.ico, a browser window does: the page names its own (empty) icon.
    assert.equal(await page.locator('link[rel="icon"]').getAttribute('href'), 'data:,');
  });
});
