// Two `bonsai serve` processes on one etcd, through the real kubectl: a Deployment created through the API-only
// process is rolled out by the other's controllers and kubelets; a watch on one sees the other's writes in order,
// across etcd compactions; a watch from a compacted revision gets 410 Gone.
// TODO(leader election, branch `leader`): run both without --api-only, kill the leader, and see controllers and
// the scheduler move to the survivor within the lease duration.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, Kubectl } from '../helpers/kubectl.js';
import { startServer, type ServerHandle } from '../helpers/server.js';
import { startEtcd, type EtcdHandle } from '../helpers/etcd.js';

type Json = Record<string, any>;

describe('two Bonsai processes on one etcd', () => {
  let etcd: EtcdHandle;
  let a: ServerHandle;
  let b: ServerHandle;
  let ka: Kubectl;
  let kb: Kubectl;

  before(async () => {
    etcd = await startEtcd();
    const common = ['--storage', etcd.storage, '--etcd-compaction-interval', '1s'];
    a = await startServer({ args: [...common, '--nodes', '2', '--addons', ''] });
    b = await startServer({ args: [...common, '--api-only'] });
    [ka, kb] = [new Kubectl(a.kubeconfig), new Kubectl(b.kubeconfig)];
  });
  after(async () => {
    for (const s of [b, a]) {
      await s?.stop();
      s?.cleanup();
    }
    await etcd?.stop();
  });

  it('rolls out a Deployment created through the API-only process; both processes show its pods Running', async () => {
    await kb.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=3']);
    for (const k of [ka, kb]) {
      await eventually(async () => {
        const pods = JSON.parse(await k.ok(['get', 'pods', '-l', 'app=web', '-o', 'json'])) as Json;
        return pods.items.length === 3 && pods.items.every((p: Json) => p.status?.phase === 'Running' && p.spec?.nodeName);
      }, 60_000, 'three Running pods');
    }
    const d = JSON.parse(await kb.ok(['get', 'deployment', 'web', '-o', 'json'])) as Json;
    assert.equal(d.status?.availableReplicas, 3);
  });

  it('a watch through one process sees writes made through the other, in order, across compactions', async () => {
    await ka.ok(['create', 'namespace', 'order']);
    await eventually(async () => (await kb.run(['get', 'namespace', 'order'])).code === 0, 10_000, 'the namespace on b');
    const w = kb.start(['get', 'configmaps', '-n', 'order', '-w', '--output-watch-events', '-o', 'custom-columns=EVENT:.type,NAME:.object.metadata.name', '--no-headers']);
    try {
      // Writes made before the watch starts come from its initial list, in name order: the same order here.
      const names: string[] = [];
      for (let i = 0; i < 12; i++) {
        names.push(`cm-${String(i).padStart(2, '0')}`);
        await ka.ok(['create', 'configmap', names[i], '-n', 'order', `--from-literal=i=${i}`]);
        // Half way: let compaction (every second, keeping one interval) pass the writes before the rest.
        if (i === 5) await new Promise((r) => setTimeout(r, 2500));
      }
      const seen = await eventually(() => {
        const lines = w.out().split('\n').map((l) => l.trim().split(/\s+/)).filter((l) => l[0] === 'ADDED');
        return lines.length >= names.length && lines.map((l) => l[1]);
      }, 20_000, 'every ADDED event on b');
      assert.deepEqual(seen, names, 'in the order written, no gaps');
    } finally {
      w.stop();
    }
  });

  it('a watch from a compacted revision gets 410 Gone', async () => {
    const base = b.url;
    const token = await kb.ok(['config', 'view', '--raw', '-o', 'jsonpath={.users[0].user.token}']);
    const headers = token ? { authorization: `Bearer ${token}` } : undefined;
    const list = (await (await fetch(`${base}/api/v1/namespaces/order/configmaps`, { headers })).json()) as Json;
    const old = Number(list.metadata.resourceVersion);
    await ka.ok(['create', 'configmap', 'after-list', '-n', 'order']);
    const status = await eventually(async () => {
      const res = await fetch(`${base}/api/v1/namespaces/order/configmaps?watch=1&resourceVersion=${old}&timeoutSeconds=1`, { headers });
      const text = await res.text();
      if (res.status === 410) return JSON.parse(text) as Json;
      const error = text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Json).find((e) => e.type === 'ERROR');
      return error?.object?.code === 410 ? (error.object as Json) : undefined;
    }, 20_000, 'a 410 for the old revision');
    assert.equal(status.reason, 'Expired');
    assert.match(String(status.message), /too old resource version/);
    // A client that relists from now on watches without error.
    const fresh = (await (await fetch(`${base}/api/v1/namespaces/order/configmaps`, { headers })).json()) as Json;
    assert.ok(fresh.items.some((c: Json) => c.metadata.name === 'after-list'));
    const res = await fetch(`${base}/api/v1/namespaces/order/configmaps?watch=1&resourceVersion=${fresh.metadata.resourceVersion}&timeoutSeconds=1`, { headers });
    assert.equal(res.status, 200);
    assert.ok(!(await res.text()).includes('"ERROR"'));
    // Time travel needs SQLite's change log: on etcd its routes say so.
    const history = await fetch(`${base}/bonsai/v1/history`, { headers });
    assert.equal(history.status, 404);
    assert.match(((await history.json()) as Json).message, /time travel is not available/);
  });
});
