// Objects deleted and created again under their names before a controller sees the delete (controllers read the
// store as it is now; the events come after) are new objects to it, as to upstream's:
// - a Job does not inherit the pod failure backoff of the one it replaces (JobSet's restart does this with every Job);
// - a pending pod is a new pod to the scheduling queue, not folded into the old pod's entry (which the scheduler
//   would drop as soon as it tried it, the uids differing, leaving the pod Pending);
// - a KEDA ScaledJob at the same generation gets scalers of its own, not the old object's scale loop;
// - a pod Karpenter nominated to a launching NodeClaim, made again with other requirements (a StatefulSet's pod after
//   a template fix), is not counted as nominated to that claim: it gets a claim of its own in the next batch.
import { describe, it } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/machinery/types.js';
import type { Bonsai } from '../../src/main.js';
import { useBonsai } from './http.js';
import { waitDeadline } from '../helpers/wait.js';

async function until<T>(what: string, f: () => T | undefined): Promise<T> {
  const end = Date.now() + waitDeadline(10_000);
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

type Registry = Bonsai['registry'];

/** Deletes `obj`'s namesake and creates `obj` in one go, before either write's event is out; resolves with the new object. */
async function recreate(reg: Registry, def: NonNullable<ReturnType<Registry['find']>>, obj: KObject, opts: Parameters<Registry['delete']>[3] = {}): Promise<KObject> {
  const ns = obj.metadata.namespace ?? '';
  const deleted = reg.delete(def, ns, obj.metadata.name!, opts);
  const created = reg.create(def, ns, obj);
  await deleted;
  return created;
}

/**
 * Polls, moving a standing virtual clock on half a second each time (backoffs and batches run out on it), for at most
 * `virtualMs` of simulated time.
 */
async function advancingUntil(env: { b: Bonsai }, what: string, f: () => boolean, virtualMs = 20_000): Promise<void> {
  const end = Date.now() + waitDeadline(10_000);
  for (let moved = 0; !f(); moved += 500) {
    if (Date.now() > end || moved > virtualMs) assert.fail(`timed out waiting for ${what} (${moved} ms of simulated time)`);
    await env.b.clock.advance(500);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('Job recreated under the same name', () => {
  // The clock stands still: a pod failure's backoff (10 s) never runs out, so only a fresh Job creates a pod.
  const { env } = useBonsai({ clockSpeed: 0, cluster: { nodes: 0 } });

  const job = (): KObject => ({
    apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'again', namespace: 'default' },
    spec: { parallelism: 1, completions: 1, backoffLimit: 3, template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox' }] } } },
  } as KObject);

  it('creates its pod at once, without the backoff of the pod that failed under the old Job', async () => {
    const reg = env.b.registry;
    const jobs = reg.find('batch', 'v1', 'jobs')!;
    const pods = reg.find('', 'v1', 'pods')!;
    const podsOf = (uid: string | undefined) => reg.list(pods, 'default', { labelSelector: `batch.kubernetes.io/controller-uid=${uid}` }).items;
    const first = await reg.create(jobs, 'default', job());
    const pod = await until('the first pod', () => podsOf(first.metadata.uid)[0]);
    // Its pod fails (no node runs it: the test writes what a kubelet would): the controller records the failure.
    await reg.update(pods, 'default', pod.metadata.name!, (cur) => ({ ...cur, status: { ...(cur.status as object), phase: 'Failed' } } as KObject), { subresource: 'status' });
    await until('the failure counted', () => (reg.get(jobs, 'default', 'again').status as { failed?: number } | undefined)?.failed === 1 || undefined);
    // The replacement waits for the backoff on the standing clock.
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(podsOf(first.metadata.uid).filter((p) => (p.status as { phase?: string } | undefined)?.phase !== 'Failed').length, 0, 'no replacement pod during the backoff');
    // Deleted and created again in one go: the controller sees only the new Job.
    const second = await recreate(reg, jobs, job(), { propagationPolicy: 'Background' });
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    await until('the new Job\'s pod', () => podsOf(second.metadata.uid)[0]);
  });
});

describe('pending pod recreated under the same name', () => {
  // The clock stands still but for the test's steps (a parked pod's backoff runs out on it).
  const { env } = useBonsai({ clock: 'virtual', clockSpeed: 0, cluster: { nodes: 1 } });

  const pod = (): KObject => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'again', namespace: 'default' },
    spec: { nodeSelector: { disk: 'ssd' }, containers: [{ name: 'main', image: 'busybox' }] },
  } as KObject);

  it('is scheduled once a node fits it', async () => {
    const reg = env.b.registry;
    const pods = reg.find('', 'v1', 'pods')!;
    const nodes = reg.find('', 'v1', 'nodes')!;
    const conditionOf = (p: KObject) => ((p.status as { conditions?: { type: string; status: string; reason?: string }[] } | undefined)?.conditions ?? [])
      .find((c) => c.type === 'PodScheduled');
    const first = await reg.create(pods, 'default', pod());
    // No node has the label: the scheduler tries the pod and parks it.
    await until('the first pod marked Unschedulable', () => conditionOf(reg.get(pods, 'default', 'again'))?.reason === 'Unschedulable' || undefined);
    // Deleted and created again in one go: the scheduler sees the new pod when the delete's event comes, and tries it
    // at once (folded into the old pod's parked entry, it waited for a cluster event).
    const second = await recreate(reg, pods, pod(), { gracePeriodSeconds: 0 });
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    await until('the new pod marked Unschedulable', () => conditionOf(reg.get(pods, 'default', 'again'))?.reason === 'Unschedulable' || undefined);
    // A worker node gets the label: the parked pod is tried again and bound.
    const node = reg.list(nodes, '', {}).items.find((n) => !(n.spec as { taints?: unknown[] } | undefined)?.taints?.length)!;
    await reg.update(nodes, '', node.metadata.name!, (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata.labels, disk: 'ssd' } } } as KObject));
    const nodeName = () => (reg.get(pods, 'default', 'again').spec as { nodeName?: string }).nodeName;
    await advancingUntil(env, 'the new pod bound', () => nodeName() !== undefined);
    const bound = reg.get(pods, 'default', 'again');
    assert.equal(bound.metadata.uid, second.metadata.uid);
    assert.equal((bound.spec as { nodeName?: string }).nodeName, node.metadata.name);
  });
});

describe('KEDA ScaledJob recreated under the same name', () => {
  const { env } = useBonsai({ addons: ['keda'], clockSpeed: 0, cluster: { nodes: 0 } });

  const scaledJob = (trigger: { type: string; metadata: Record<string, string> }): KObject => ({
    apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledJob', metadata: { name: 'again', namespace: 'default' },
    spec: { jobTargetRef: { template: { spec: { containers: [{ name: 'main', image: 'busybox' }] } } }, triggers: [trigger] },
  } as KObject);

  it('builds the new object\'s scalers', async () => {
    await env.b.addonsReady;
    const reg = env.b.registry;
    const scaledJobs = reg.find('keda.sh', 'v1alpha1', 'scaledjobs')!;
    const events = reg.find('', 'v1', 'events')!;
    const built = (uid: string | undefined, type: string) => reg.list(events, 'default', {}).items
      .some((e) => (e.involvedObject as { uid?: string }).uid === uid && e.reason === 'KEDAScalersStarted' && e.message === `Scaler ${type} is built`);
    const cron = { type: 'cron', metadata: { timezone: 'UTC', start: '0 0 1 1 *', end: '0 1 1 1 *', desiredReplicas: '2' } };
    const first = await reg.create(scaledJobs, 'default', scaledJob(cron));
    await until('the cron scaler built', () => built(first.metadata.uid, 'cron') || undefined);
    // Deleted and made again, at generation 1 again, with another trigger.
    const second = await recreate(reg, scaledJobs, scaledJob({ type: 'metrics-api', metadata: { url: 'http://127.0.0.1:9/q', valueLocation: 'n', targetValue: '1' } }));
    assert.notEqual(second.metadata.uid, first.metadata.uid);
    assert.equal(second.metadata.generation, first.metadata.generation);
    await until('the metrics-api scaler built for the new ScaledJob', () => built(second.metadata.uid, 'metrics-api') || undefined);
  });
});

describe('pod nominated by Karpenter recreated under the same name', () => {
  // The clock stands still but for the test's steps; a launch takes 10 minutes, so the first claim stays launching.
  const clusterFile = join(mkdtempSync(join(tmpdir(), 'bonsai-recreate-')), 'cluster.yaml');
  writeFileSync(clusterFile, 'nodePools: []\naddons:\n  karpenter:\n    launchSeconds: 600\n');
  const { env } = useBonsai({ addons: ['karpenter'], clock: 'virtual', clockSpeed: 0, cluster: { clusterFile } });

  const pod = (arch: string): KObject => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'again', namespace: 'default' },
    spec: { nodeSelector: { 'kubernetes.io/arch': arch }, containers: [{ name: 'main', image: 'busybox', resources: { requests: { cpu: '1' } } }] },
  } as KObject);

  it('gets a NodeClaim of its own', async () => {
    await env.b.addonsReady;
    const reg = env.b.registry;
    const pods = reg.find('', 'v1', 'pods')!;
    const claims = reg.find('karpenter.sh', 'v1', 'nodeclaims')!;
    await reg.create(reg.find('karpenter.kwok.sh', 'v1alpha1', 'kwoknodeclasses')!, '', { apiVersion: 'karpenter.kwok.sh/v1alpha1', kind: 'KWOKNodeClass', metadata: { name: 'default' } } as KObject);
    await reg.create(reg.find('karpenter.sh', 'v1', 'nodepools')!, '', {
      apiVersion: 'karpenter.sh/v1', kind: 'NodePool', metadata: { name: 'default' },
      spec: { disruption: { consolidateAfter: 'Never' }, template: { spec: { nodeClassRef: { group: 'karpenter.kwok.sh', kind: 'KWOKNodeClass', name: 'default' }, requirements: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }] } } },
    } as KObject);
    const archOf = (c: KObject) => ((c.spec as { requirements?: { key: string; values?: string[] }[] }).requirements ?? []).find((r) => r.key === 'kubernetes.io/arch')?.values?.join(',');
    await reg.create(pods, 'default', pod('amd64'));
    await advancingUntil(env, 'a NodeClaim for the amd64 pod', () => reg.list(claims, '', {}).items.length === 1);
    const [first] = reg.list(claims, '', {}).items;
    assert.equal(archOf(first), 'amd64');
    // The pod is made again for arm64 while its claim is launching.
    await recreate(reg, pods, pod('arm64'), { gracePeriodSeconds: 0 });
    await advancingUntil(env, 'a second NodeClaim, for the arm64 pod', () => reg.list(claims, '', {}).items.length === 2);
    const second = reg.list(claims, '', {}).items.find((c) => c.metadata.name !== first.metadata.name)!;
    assert.equal(archOf(second), 'arm64');
  });
});
