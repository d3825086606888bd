// The web dashboard in headless Chromium (Debian's /usr/bin/chromium through playwright-core) against a real
// `bonsai serve`: nodes and a Deployment's pods appear live, a node stopped from the UI turns NotReady, the
// timeline dragged back before the Deployment shows none of its pods, and a pending GPU pod's scheduling
// explanation names `Insufficient nvidia.com/gpu` for every node but the control-plane node (its taint). Screenshots
// go to a scratch folder, and to docs/screenshots only when asked (`npm run screenshots` sets BONSAI_SCREENSHOTS=1):
// `npm test` rewrites no committed file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { projectRoot } from '../helpers/server.js';
import { parse } from 'yaml';
import { waitDeadline } from '../helpers/wait.js';
import { etcdTestMode, sqliteOnly } from '../helpers/etcd-process.js';

const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const keepShots = process.env.BONSAI_SCREENSHOTS === '1';
const shots = keepShots ? join(projectRoot, 'docs', 'screenshots') : mkdtempSync(join(tmpdir(), 'bonsai-shots-'));
const webPods = '.node [data-pod^="default/web-"]';
const nodeNames = ['bonsai-control-plane', 'bonsai-gpu-1', 'bonsai-worker-1', 'bonsai-worker-2', 'bonsai-worker-3'];

describe('web dashboard', () => {
  const env = useKubectlServer({ args: ['--clock-speed', '20'] });
  let browser: Browser;
  let page: Page;
  let beforeDeployment = 0;

  before(async () => {
    assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: .ci/run installs Debian's chromium`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    mkdirSync(shots, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    if (!keepShots) rmSync(shots, { recursive: true, force: true });
  });

  const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`) });
  const history = async () => {
    const r = await fetch(`${env.server.url}/bonsai/v1/history`);
    assert.equal(r.status, 200, 'GET /bonsai/v1/history');
    return (await r.json()) as { oldest: number; newest: number };
  };

  it('serves the bundle under /ui/, /ui redirecting', async () => {
    const r = await fetch(`${env.server.url}/ui`, { redirect: 'manual' });
    assert.equal(r.status, 302);
    assert.equal(r.headers.get('location'), '/ui/');
    const html = await fetch(`${env.server.url}/ui/`);
    assert.match(html.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await html.text(), /<script type="module" src="app.js">/);
    assert.equal((await fetch(`${env.server.url}/ui/app.js`)).status, 200);
    assert.equal((await fetch(`${env.server.url}/ui/..%2Fsrc%2Fmain.js`)).status, 404);
  });

  it('shows the five nodes, the control-plane node with its role', async () => {
    await page.goto(`${env.server.url}/ui/`);
    await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length === n, nodeNames.length, { timeout: waitDeadline(10_000) });
    const names = await page.locator('.node [data-node], .node').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')));
    assert.deepEqual(names.filter(Boolean).sort(), nodeNames);
    await page.waitForFunction(() => document.querySelectorAll('[data-node][data-ready="True"]').length === 5, undefined, { timeout: waitDeadline(10_000) });
    const roles = await page.locator('[data-node] [data-role]').evaluateAll((els) => els.map((e) => `${e.closest('[data-node]')?.getAttribute('data-node')}:${e.textContent}`));
    assert.deepEqual(roles, ['bonsai-control-plane:control-plane'], 'only the control-plane node has a role, as on kind');
  });

  it("shows a Deployment's pods after kubectl create", async () => {
    // The newest revision now: the timeline's position before the Deployment.
    if (!etcdTestMode) beforeDeployment = (await history()).newest;
    await env.k.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=3']);
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 3, webPods, { timeout: waitDeadline(2000) });
    await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].every((e) => e.classList.contains('running')), webPods, { timeout: waitDeadline(10_000) });
    await shot('cluster-map');
  });

  it('explains a pending GPU pod: Insufficient nvidia.com/gpu on every node but the tainted control-plane node', async () => {
    await env.k.ok(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'v1', kind: 'Pod', metadata: { name: 'gpu-hog' },
        spec: { containers: [{ name: 'train', image: 'busybox', resources: { limits: { 'nvidia.com/gpu': '16' } } }] },
      }),
    });
    const pending = page.locator('.pending [data-pod="default/gpu-hog"]');
    await pending.waitFor({ timeout: waitDeadline(10_000) });
    await pending.click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-explain-node]').length === n, nodeNames.length, { timeout: waitDeadline(10_000) });
    const rows = await page.locator('[data-explain-node]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-explain-node'), e.textContent ?? '']));
    assert.deepEqual(rows.map(([n]) => n).sort(), nodeNames);
    for (const [node, text] of rows) {
      const why = node === 'bonsai-control-plane' ? /untolerated taint \{node-role\.kubernetes\.io\/control-plane: \}/ : /Insufficient nvidia\.com\/gpu/;
      assert.match(text!, why, `node ${node}`);
    }
    assert.equal(await page.locator('[data-explain="Unschedulable"]').count(), 1);
    await shot('scheduling-explained');
    await page.locator('aside .close').click();
    await env.k.ok(['delete', 'pod', 'gpu-hog', '--wait=false']);
  });

  it('stops a node from the UI and shows it NotReady', async () => {
    await page.locator('[data-node="bonsai-worker-1"] .node-head').click();
    await page.locator('[data-action="stop-node"]').click();
    await page.waitForSelector('[data-node="bonsai-worker-1"][data-stopped="true"]', { timeout: waitDeadline(5_000) }).catch(async (e: unknown) => {
      throw new Error(`${String(e)}\npanel: ${await page.locator('aside').textContent()}`);
    });
    await page.waitForSelector('[data-node="bonsai-worker-1"] .flag.notready', { timeout: waitDeadline(20_000) });
    const ready = await page.locator('[data-node="bonsai-worker-1"]').getAttribute('data-ready');
    assert.notEqual(ready, 'True');
    await eventually(async () => /^bonsai-worker-1\s+NotReady\s/m.test(await env.k.ok(['get', 'nodes'])), 5_000, 'kubectl sees NotReady');
    const node = JSON.parse(await env.k.ok(['get', 'node', 'bonsai-worker-1', '-o', 'json'])) as { metadata: { annotations: Record<string, string> } };
    assert.equal(node.metadata.annotations['bonsai.dev/stopped'], 'true');
    await shot('node-stopped');
  });

  it('drags the timeline back to before the Deployment existed: none of its pods', { skip: sqliteOnly('time travel reads the change log the SQLite store keeps') }, async () => {
    assert.ok(await page.locator(webPods).count() >= 3, 'live map shows the pods');
    const range = await history();
    assert.ok(range.oldest <= beforeDeployment && beforeDeployment < range.newest, `${beforeDeployment} within ${JSON.stringify(range)}`);
    await page.locator('[data-action="time-travel"]').click();
    const slider = page.locator('input.timeline');
    await slider.waitFor({ timeout: waitDeadline(5_000) });
    await slider.fill(String(beforeDeployment));
    await page.waitForSelector(`.travel[data-revision="${beforeDeployment}"]`, { timeout: waitDeadline(5_000) });
    await page.waitForFunction(() => document.querySelectorAll('[data-node]').length === 5, undefined, { timeout: waitDeadline(5_000) });
    assert.equal(await page.locator(webPods).count(), 0);
    assert.equal(await page.locator('[data-pod^="default/web-"]').count(), 0);
    await shot('time-travel');
    // The API stayed live meanwhile; back to live, the pods are there again.
    assert.match(await env.k.ok(['get', 'pods']), /web-/);
    await page.locator('[data-action="leave-travel"]').click();
    await page.waitForFunction((sel) => document.querySelectorAll(sel).length >= 3, webPods, { timeout: waitDeadline(5_000) });
  });

  it('lists the Deployment with its pods in Workloads and scales it; the events timeline filters by object', async () => {
    await page.locator('aside .close').click();
    await page.locator('[data-tab="workloads"]').click();
    const web = page.locator('[data-workload="Deployment/default/web"]');
    await web.waitFor({ timeout: waitDeadline(5_000) });
    await page.waitForFunction(() => document.querySelectorAll('[data-workload="Deployment/default/web"] [data-pod]').length === 3, undefined, { timeout: waitDeadline(5_000) });
    assert.match(await web.textContent() ?? "", /\d\/3 ready · 3 up-to-date/); // worker-1 is stopped: its pod is not ready
    await web.locator('input.replicas').fill('4');
    await web.locator('[data-action="scale"]').click();
    await eventually(async () => (JSON.parse(await env.k.ok(['get', 'deployment', 'web', '-o', 'json'])) as { spec: { replicas: number } }).spec.replicas === 4, 5_000, 'scaled to 4');
    await page.waitForFunction(() => document.querySelectorAll('[data-workload="Deployment/default/web"] [data-pod]').length === 4, undefined, { timeout: waitDeadline(10_000) });
    await shot('workloads');
    await page.locator('[data-tab="events"]').click();
    await page.locator('.events input').fill('Deployment/web');
    await page.waitForSelector('[data-event-object="Deployment/web"]', { timeout: waitDeadline(5_000) });
    const objects = await page.locator('[data-event-object]').evaluateAll((els) => els.map((e) => e.getAttribute('data-event-object')));
    assert.ok(objects.length > 0 && objects.every((o) => o === 'Deployment/web'), objects.join(','));
    assert.match(await page.locator('.events').textContent() ?? '', /ScalingReplicaSet/);
    await shot('events');
  });
});

describe('web dashboard under RBAC', () => {
  const env = useKubectlServer({ args: ['--authorization-mode', 'RBAC'] });
  let browser: Browser;
  after(async () => {
    await browser?.close();
  });

  it('shows the 403 and a token field; with the pasted admin token the nodes appear', async () => {
    assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: .ci/run installs Debian's chromium`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // Anonymous by default: the UI asks as system:anonymous, whom RBAC lets list no nodes; whichever of its first
    // requests (discovery, the clock, a list) answers first names the refusal.
    await page.goto(`${env.server.url}/ui/`);
    await page.waitForSelector('[data-auth-status="403"]', { timeout: waitDeadline(10_000) });
    assert.match(await page.locator('.auth').textContent() ?? '', /forbidden: User "system:anonymous" cannot (list resource "(nodes|pods)"|get path "\/(apis|bonsai\/v1\/clock)")/);
    assert.equal(await page.locator('[data-node]').count(), 0);
    const kubeconfig = parse(readFileSync(env.server.kubeconfig, 'utf8')) as { users: { user: { token: string } }[] };
    await page.locator('.auth input[type="password"]').fill(kubeconfig.users[0]!.user.token);
    await page.locator('[data-action="set-token"]').click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length === n, nodeNames.length, { timeout: waitDeadline(10_000) });
    assert.equal(await page.locator('.auth').count(), 0);
  });

  it('a refusal of a request sent before the token was pasted does not bring the 403 back', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // The clock's anonymous requests are held until the token is in: their 403 then answers a token no longer used.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    let holding = 0;
    await page.route('**/bonsai/v1/clock**', async (route) => {
      if (!route.request().headers().authorization) {
        holding++;
        await held;
      }
      await route.continue();
    });
    await page.goto(`${env.server.url}/ui/`);
    await page.waitForSelector('[data-auth-status="403"]', { timeout: waitDeadline(10_000) });
    await eventually(() => holding > 0, 10_000, 'an anonymous clock request held');
    const kubeconfig = parse(readFileSync(env.server.kubeconfig, 'utf8')) as { users: { user: { token: string } }[] };
    await page.locator('.auth input[type="password"]').fill(kubeconfig.users[0]!.user.token);
    await page.locator('[data-action="set-token"]').click();
    await page.waitForFunction((n) => document.querySelectorAll('[data-node]').length === n, nodeNames.length, { timeout: waitDeadline(10_000) });
    const refused = page.waitForResponse((r) => r.url().includes('/bonsai/v1/clock') && r.status() === 403);
    release();
    await refused;
    // The banner must not come back: it would within a few frames of the answer.
    const back = await page.waitForSelector('.auth', { timeout: 2_000 }).then(() => true, () => false);
    assert.equal(back, false, 'the 403 banner came back for a request sent before the token');
    await page.close();
  });
});
