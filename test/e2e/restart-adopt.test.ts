// A file-mode server restarted (SIGTERM, then `bonsai serve` again on its data dir) adopts what its kubelets left:
// the stable pods and the nodes are written nothing (their resourceVersions stay), while a pod whose run time ran out
// while the server was down completes at its own time.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, type ServerHandle } from '../helpers/server.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;

async function get(base: string, path: string): Promise<Json> {
  const res = await fetch(base + path, { signal: AbortSignal.timeout(10_000) });
  assert.equal(res.status, 200, `GET ${path}`);
  return (await res.json()) as Json;
}

async function createPod(base: string, body: Json): Promise<void> {
  const res = await fetch(`${base}/api/v1/namespaces/default/pods`, {
    method: 'POST', body: JSON.stringify({ apiVersion: 'v1', kind: 'Pod', ...body }), headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(10_000),
  });
  assert.equal(res.status, 201, await res.text());
}

const rvs = (list: Json) => new Map<string, string>((list.items as Json[]).map((o) => [o.metadata.name, o.metadata.resourceVersion]));

describe('restart on a data dir', () => {
  const servers: ServerHandle[] = [];
  after(async () => {
    for (const s of servers) await s.stop('SIGKILL').catch(() => undefined);
    servers[0]?.cleanup();
  });

  it('stable pods and nodes are not written again; a pod whose run time passed while down completes', async () => {
    const first = await startServer();
    servers.push(first);
    await eventually(async () => (await get(first.url, '/api/v1/nodes')).items.length > 0, 15_000, 'nodes');
    for (const name of ['web-a', 'web-b', 'web-c']) {
      await createPod(first.url, { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx', resources: { requests: { cpu: '10m' } } }] } });
    }
    await createPod(first.url, {
      metadata: { name: 'job', annotations: { 'bonsai.dev/run-seconds': '3' } },
      spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox', command: ['sh', '-c', 'echo hi'] }] },
    });
    await eventually(async () => {
      const pods = (await get(first.url, '/api/v1/namespaces/default/pods')).items as Json[];
      return pods.length === 4 && pods.every((p) => p.status?.phase === 'Running' && p.status.conditions?.some((c: Json) => c.type === 'Ready' && c.status === 'True'));
    }, 15_000, 'every pod Running and Ready');
    // Let the node statuses the kubelets report settle (pods' requests change nothing they post).
    await sleep(500);
    const podsBefore = await get(first.url, '/api/v1/namespaces/default/pods');
    const nodesBefore = await get(first.url, '/api/v1/nodes');
    const job = (podsBefore.items as Json[]).find((p) => p.metadata.name === 'job')!;
    const jobStarted = Date.parse(job.status.containerStatuses[0].state.running.startedAt);
    assert.equal(await first.stop('SIGTERM'), 0);
    // Down until well after the job's 3 s are over.
    await sleep(Math.max(0, jobStarted + 4_000 - Date.now()));
    const downAt = Date.now();

    const second = await startServer({ dataDir: first.dataDir });
    servers.push(second);
    const done = await eventually(async () => {
      const p = await get(second.url, '/api/v1/namespaces/default/pods/job');
      return p.status?.phase === 'Succeeded' ? p : undefined;
    }, 15_000, 'the job Succeeded after the restart');
    const finished = Date.parse(done.status.containerStatuses[0].state.terminated.finishedAt);
    assert.ok(finished <= jobStarted + 3_000 + 1000, `finished at its own time (${done.status.containerStatuses[0].state.terminated.finishedAt})`);
    assert.ok(finished < downAt, 'while the server was down');
    await sleep(1500);
    const podsAfter = rvs(await get(second.url, '/api/v1/namespaces/default/pods'));
    for (const [name, rv] of rvs(podsBefore)) if (name !== 'job') assert.equal(podsAfter.get(name), rv, `pod ${name} not written`);
    const nodesAfter = rvs(await get(second.url, '/api/v1/nodes'));
    for (const [name, rv] of rvs(nodesBefore)) assert.equal(nodesAfter.get(name), rv, `node ${name} not written`);
    const nodes = (await get(second.url, '/api/v1/nodes')).items as Json[];
    assert.ok(nodes.every((n) => n.status.conditions.some((c: Json) => c.type === 'Ready' && c.status === 'True')), 'nodes stay Ready');
  });
});
