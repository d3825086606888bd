// A GPU node's devices in the dashboard's node panel, in headless Chromium (Debian's /usr/bin/chromium through
// playwright-core) against a real `bonsai serve` with one H100 node of 4 GPUs published with MIG partitions: each
// GPU with its product name and memory, and who holds it: a pod through a claim from a template, two pods sharing
// one claim, a pod through the nvidia.com/gpu capacity (the GPU the kubelet handed it), a MIG slice under its GPU; the
// rest free. The map's GPU bar counts them all. When the pods go, their GPUs show free again; time travel back to
// when they were held shows them held, in the panel and on the bar.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually } from '../helpers/kubectl.js';
import { noAddons, useKubectlServer } from '../helpers/cluster.js';
import { waitDeadline } from '../helpers/wait.js';
import { etcdTestMode } from '../helpers/etcd-process.js';

type Json = Record<string, any>;
const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const wait = { timeout: waitDeadline(10_000) };
const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-dash-devices-')), 'cluster.yaml');
writeFileSync(clusterFile, 'controlPlane: false\nnodePools:\n  - { name: mig, count: 1, cpu: 64, memory: 512Gi, gpu: { model: h100-80gb, count: 4, mig: true } }\n');

const container = (resources: Json): Json => ({ name: 'cuda', image: 'nvidia/cuda:12.4.1-base-ubuntu22.04', command: ['sleep', '3600'], resources });
const claimPod = (name: string, claim: Json): Json => ({
  apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec: { resourceClaims: [{ name: 'gpu', ...claim }], containers: [container({ claims: [{ name: 'gpu' }] })] },
});
const devices = (className: string, expression?: string): Json => ({
  devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: className, ...(expression ? { selectors: [{ cel: { expression } }] } : {}) } }] },
});

describe('web dashboard: devices per node', () => {
  const env = useKubectlServer({ args: [...noAddons, '--cluster', clusterFile] });
  let browser: Browser;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(chromiumPath), `${chromiumPath} is missing: .ci/run installs Debian's chromium`);
    browser = await chromium.launch({ executablePath: chromiumPath, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  });
  after(async () => {
    await browser?.close();
  });

  const history = async () => {
    const r = await fetch(`${env.server.url}/bonsai/v1/history`);
    assert.equal(r.status, 200, 'GET /bonsai/v1/history');
    return (await r.json()) as { oldest: number; newest: number };
  };
  const apply = (...items: Json[]) => env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
  /** The panel's device rows: name, state and the cells' text (` | ` between cells). */
  const rows = () => page.locator('[data-node-devices="bonsai-mig-1"] tr[data-device]').evaluateAll((els) => els.map((e) => [
    e.getAttribute('data-device'), e.getAttribute('data-device-state'),
    [...e.querySelectorAll('td')].map((td) => (td.textContent ?? '').replace(/\s+/g, ' ').trim()).join(' | '),
  ]));

  it('lists each GPU with its model and holder, MIG slices under their GPU, free ones as free', async () => {
    await eventually(async () => /bonsai-mig-1/.test(await env.k.ok(['get', 'resourceslices'])), 30_000, 'the driver published the node');
    await apply(
      { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'whole' }, spec: { spec: devices('gpu.bonsai.dev') } },
      { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaimTemplate', metadata: { name: 'slice' }, spec: { spec: devices('mig.gpu.bonsai.dev', "device.attributes['gpu.bonsai.dev'].profile == '1g.10gb'") } },
      { apiVersion: 'resource.k8s.io/v1', kind: 'ResourceClaim', metadata: { name: 'shared' }, spec: devices('gpu.bonsai.dev') },
      claimPod('trainer', { resourceClaimTemplateName: 'whole' }),
      claimPod('notebook', { resourceClaimTemplateName: 'slice' }),
      claimPod('reader-a', { resourceClaimName: 'shared' }),
      claimPod('reader-b', { resourceClaimName: 'shared' }),
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'legacy' }, spec: { containers: [container({ limits: { 'nvidia.com/gpu': '1' } })] } },
    );
    const pods = ['trainer', 'notebook', 'reader-a', 'reader-b', 'legacy'];
    await eventually(async () => {
      const items = (JSON.parse(await env.k.ok(['get', 'pods', '-o', 'json'])) as Json).items as Json[];
      return items.length === pods.length && items.every((p) => p.status?.phase === 'Running');
    }, 60_000, 'the five pods Running');
    const trainerClaim = (await env.k.ok(['get', 'pod', 'trainer', '-o', 'jsonpath={.status.resourceClaimStatuses[0].resourceClaimName}'])).trim();
    const notebookClaim = JSON.parse(await env.k.ok(['get', 'resourceclaim', (await env.k.ok(['get', 'pod', 'notebook', '-o', 'jsonpath={.status.resourceClaimStatuses[0].resourceClaimName}'])).trim(), '-o', 'json']));
    const slice = notebookClaim.status.allocation.devices.results[0].device as string;
    const sliceGpu = slice.replace(/-mig-.*$/, '');

    await page.goto(`${env.server.url}/ui/#/map?node=bonsai-mig-1`);
    await page.locator('aside [data-node-devices="bonsai-mig-1"]').waitFor(wait);
    const shown = await eventually(async () => {
      const r = await rows();
      // Both readers of the shared claim are listed once the panel has seen the second one's reservation too.
      return r.filter((x) => x[1] !== 'free').length === 5 && r.some((x) => /\| reader-a, reader-b claim shared$/.test(x[2] ?? '')) ? r : undefined;
    }, 20_000, 'four GPUs held (one by both readers of the shared claim) and one slice listed');
    const byName = new Map(shown.map((r) => [r[0], r]));
    const gpus = shown.filter((r) => /^gpu-\d$/.test(r[0] ?? ''));
    assert.deepEqual(gpus.map((r) => r[0]), ['gpu-0', 'gpu-1', 'gpu-2', 'gpu-3'], 'every GPU listed, in order');
    for (const g of gpus) assert.match(g[2] ?? '', new RegExp(`^${g[0]} \\| NVIDIA H100 80GB HBM3 · 80Gi \\| `));
    assert.deepEqual(gpus.map((r) => r[1]).sort(), ['capacity', 'claimed', 'claimed', 'partitioned']);
    // The MIG slice is listed right under its GPU, with its profile, its pod and claim.
    const sliceRow = shown.findIndex((r) => r[0] === slice);
    assert.equal(shown[sliceRow - 1]?.[0], sliceGpu, 'the slice under its GPU');
    assert.equal(byName.get(sliceGpu)?.[1], 'partitioned');
    assert.match(shown[sliceRow][2] ?? '', new RegExp(`^↳ 1g\\.10gb \\| ${slice} \\| notebook claim ${notebookClaim.metadata.name}$`));
    const held = (text: RegExp) => gpus.filter((r) => text.test(r[2] ?? ''));
    assert.equal(held(new RegExp(`\\| trainer claim ${trainerClaim}$`)).length, 1, 'trainer and its claim');
    assert.equal(held(/\| reader-a, reader-b claim shared$/).length, 1, 'the two pods sharing one claim on one GPU');
    assert.equal(held(/\| legacy \(nvidia\.com\/gpu\)$/).length, 1, 'the pod holding a GPU through the capacity');
    // ... the GPU the kubelet handed it (by UUID, in its container status).
    const legacyUuid = (await env.k.ok(['get', 'pod', 'legacy', '-o', 'jsonpath={.status.containerStatuses[0].allocatedResourcesStatus[0].resources[0].resourceID}'])).trim();
    const slices = (JSON.parse(await env.k.ok(['get', 'resourceslices', '-o', 'json'])) as Json).items as Json[];
    const legacyGpu = slices.flatMap((x) => (x.spec.devices ?? []) as Json[]).find((d) => d.attributes.uuid?.string === legacyUuid)?.name;
    assert.match(legacyUuid, /^GPU-/);
    assert.equal(byName.get(legacyGpu)?.[1], 'capacity', `${legacyGpu} held by legacy`);
    // The map's GPU bar counts the GPUs claims hold (a partitioned one once) beside the one held through the capacity.
    const gpuBar = async () => ((await page.locator('.node[data-node="bonsai-mig-1"] .bar', { hasText: 'GPU' }).locator('.bar-text').textContent()) ?? '').trim();
    assert.equal(await eventually(async () => ((await gpuBar()) === '4/4' ? '4/4' : undefined), 20_000, 'the GPU bar at 4/4'), '4/4');
    // Time travel reads the change log the SQLite store keeps (the etcd test mode has none).
    const heldAt = etcdTestMode ? 0 : (await history()).newest;

    // The pods go: every GPU is free again, no slice listed.
    await env.k.ok(['delete', 'pod', ...pods, '--wait=true']);
    await eventually(async () => {
      const r = await rows();
      return r.length === 4 && r.every((x) => x[1] === 'free' && /\| free$/.test(x[2] ?? '')) ? true : undefined;
    }, 30_000, 'every GPU free');
    await eventually(async () => (await gpuBar()) === '0/4', 20_000, 'the GPU bar at 0/4');

    if (etcdTestMode) return;
    // Back in time to when they were held: the panel and the bar show the devices and claims as they were then.
    await page.goto(`${env.server.url}/ui/#/time-travel?rev=${heldAt}&node=bonsai-mig-1`);
    await page.locator(`.travel[data-revision="${heldAt}"]`).waitFor(wait);
    const past = await eventually(async () => {
      const r = await rows();
      return r.filter((x) => x[1] !== 'free').length === 5 ? r : undefined;
    }, 20_000, 'the past holders listed');
    assert.deepEqual(past, shown, 'the panel as it was');
    assert.equal(await gpuBar(), '4/4');
    // Back to live: free again.
    await page.locator('[data-action="leave-travel"]').click();
    await eventually(async () => (await gpuBar()) === '0/4', 20_000, 'the live GPU bar at 0/4');
  });
});
