// get -w, selectors, paging, deletion cascades, namespace deletion and wait.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

const rsManifest = (name: string, owner?: Json) => JSON.stringify({
  apiVersion: 'apps/v1', kind: 'ReplicaSet',
  metadata: { name, labels: { app: name }, ...(owner ? { ownerReferences: [owner] } : {}) },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

const podManifest = (name: string, labels: Record<string, string>, owner?: Json, nodeName?: string) => JSON.stringify({
  apiVersion: 'v1', kind: 'Pod',
  metadata: { name, labels, ...(owner ? { ownerReferences: [owner] } : {}) },
  spec: { containers: [{ name: 'c', image: 'nginx' }], ...(nodeName ? { nodeName } : {}) },
});

describe('kubectl object lifecycle', () => {
  // No simulated nodes: unbound pods stay Pending, and a test adds the one node it needs.
  const env = useKubectlServer({ args: [...noAddons, '--nodes', '0'] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const exists = async (...args: string[]) => (await env.k.run(['get', ...args])).code === 0;


  it('get -w prints a line for each later change', async () => {
    await env.k.ok(['create', 'configmap', 'watched', '--from-literal=a=1']);
    const p = env.k.start(['get', 'configmaps', '-w']);
    const out = () => p.out();
    try {
      await eventually(() => /^watched\s+1\s+\d+s$/m.test(out()), 10_000, 'initial row');
      await env.k.ok(['create', 'configmap', 'second', '--from-literal=a=1', '--from-literal=b=2']);
      await eventually(() => /^second\s+2\s+\d+s$/m.test(out()), 10_000, 'row for the new configmap');
      await env.k.ok(['patch', 'configmap', 'watched', '--type', 'merge', '-p', '{"data":{"z":"9"}}']);
      await eventually(() => /^watched\s+2\s+\d+s$/m.test(out()), 10_000, 'row for the update');
    } finally {
      p.stop();
    }
    assert.match(out(), /^NAME\s+DATA\s+AGE$/m);
    // A single-object watch starts with the object itself (kubectl swallows the first event).
    const single = env.k.start(['get', 'configmap', 'watched', '-w', '-o', 'name']);
    const s = () => single.out();
    try {
      await eventually(() => s().includes('configmap/watched'), 10_000, 'single object watch');
      await env.k.ok(['label', 'configmap', 'watched', 'x=y']);
      await eventually(() => s().split('configmap/watched').length > 2, 10_000, 'modified line');
    } finally {
      single.stop();
    }
  });

  it('filters with label and field selectors and pages with --chunk-size', async () => {
    await env.k.ok(['create', 'namespace', 'sel']);
    for (let i = 0; i < 5; i++) {
      await env.k.ok(['apply', '-n', 'sel', '-f', '-'], { input: podManifest(`p${i}`, { tier: i % 2 ? 'odd' : 'even', idx: String(i) }, undefined, i < 2 ? 'node-a' : undefined) });
    }
    const even = await env.k.ok(['get', 'pods', '-n', 'sel', '-l', 'tier=even', '-o', 'name']);
    assert.deepEqual(even.trim().split('\n'), ['pod/p0', 'pod/p2', 'pod/p4']);
    const notIn = await env.k.ok(['get', 'pods', '-n', 'sel', '-l', 'idx notin (0,1),tier!=odd', '-o', 'name']);
    assert.deepEqual(notIn.trim().split('\n'), ['pod/p2', 'pod/p4']);
    const onNode = await env.k.ok(['get', 'pods', '-n', 'sel', '--field-selector', 'spec.nodeName=node-a', '-o', 'name']);
    assert.deepEqual(onNode.trim().split('\n'), ['pod/p0', 'pod/p1']);
    const byName = await env.k.ok(['get', 'pods', '-A', '--field-selector', 'metadata.name=p3,metadata.namespace=sel', '-o', 'name']);
    assert.equal(byName.trim(), 'pod/p3');
    const pending = await env.k.ok(['get', 'pods', '-n', 'sel', '--field-selector', 'status.phase!=Running', '-o', 'name']);
    assert.equal(pending.trim().split('\n').length, 5);
    const bad = await env.k.fails(['get', 'pods', '--field-selector', 'spec.bogus=1']);
    assert.match(bad, /field label not supported: spec\.bogus/);
    const paged = await env.k.ok(['get', 'pods', '-A', '--chunk-size=1', '-v=6']);
    assert.match(paged, /^sel\s+p4\s+0\/1\s+Pending\s+0\s+\d+s$/m);
    const all = await env.k.ok(['get', 'pods', '-A', '--chunk-size=1', '-o', 'name']);
    assert.equal(all.trim().split('\n').length, 5);
  });

  it('deletes dependents in background and foreground, and orphans on request', async () => {
    for (const [name, cascade] of [['bg', 'background'], ['fg', 'foreground'], ['orph', 'orphan']] as const) {
      await env.k.ok(['apply', '-f', '-'], { input: rsManifest(name) });
      const rs = await getJson('rs', name);
      // The ReplicaSet controller creates the dependent: a pod with a controller reference to the set.
      const podName = await eventually(async () => {
        const items = (await getJson('pods', '-l', `app=${name}`)).items as Json[];
        return items.length === 1 && items[0].metadata.ownerReferences?.[0]?.uid === rs.metadata.uid && items[0].metadata.name as string;
      }, 10_000, `${name}'s pod`);
      assert.match(await env.k.ok(['delete', 'rs', name, `--cascade=${cascade}`]), new RegExp(`replicaset.apps "${name}" deleted`));
      assert.equal(await exists('rs', name), false);
      if (cascade === 'orphan') {
        const pod = await getJson('pod', podName);
        assert.equal(pod.metadata.ownerReferences, undefined);
      } else {
        await eventually(async () => !(await exists('pod', podName)), 10_000, `${podName} deleted`);
      }
    }
  });

  it('deletes a namespace with its contents, and waits', async () => {
    await env.k.ok(['create', 'namespace', 'doomed']);
    await env.k.ok(['create', 'configmap', 'c1', '-n', 'doomed']);
    await env.k.ok(['create', 'deployment', 'd1', '--image=nginx', '-n', 'doomed']);
    const del = await env.k.ok(['delete', 'namespace', 'doomed', '--wait=true', '--timeout=30s']);
    assert.match(del, /namespace "doomed" deleted/);
    assert.equal(await exists('namespace', 'doomed'), false);
    assert.match(await env.k.fails(['get', 'cm', 'c1', '-n', 'doomed']), /NotFound/);

    await env.k.ok(['create', 'configmap', 'w1', '--from-literal=ready=no']);
    const waiter = env.k.run(['wait', '--for=jsonpath={.data.ready}=yes', 'configmap/w1', '--timeout=20s']);
    await env.k.ok(['patch', 'configmap', 'w1', '--type', 'merge', '-p', '{"data":{"ready":"yes"}}']);
    const w = await waiter;
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /configmap\/w1 condition met/);
    const delWaiter = env.k.run(['wait', '--for=delete', 'configmap/w1', '--timeout=20s']);
    await env.k.ok(['delete', 'configmap', 'w1', '--wait=false']);
    assert.equal((await delWaiter).code, 0);
  });

  it('deletes a bound pod gracefully and collections at once', async () => {
    // node-a gets a simulated kubelet, which runs the pod's preStop hook and then removes the pod.
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } }) });
    const graceful = JSON.parse(podManifest('graceful', { app: 'g' }, undefined, 'node-a')) as Json;
    graceful.spec.containers[0].lifecycle = { preStop: { sleep: { seconds: 2 } } };
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(graceful) });
    await eventually(async () => (await getJson('pod', 'graceful')).status.phase === 'Running', 10_000, 'graceful pod running');
    // The cluster clock stands still while the terminating pod is inspected: its preStop hook and grace period count
    // cluster time, so however slow kubectl is on a busy machine, the pod is still there, Terminating.
    const clock = (action: string) => env.k.ok(['create', '--raw', '/bonsai/v1/clock', '-f', '-'], { input: JSON.stringify({ action }) });
    await clock('pause');
    try {
      await env.k.ok(['delete', 'pod', 'graceful', '--wait=false', '--grace-period=5']);
      const pod = await getJson('pod', 'graceful');
      assert.ok(pod.metadata.deletionTimestamp, 'deletionTimestamp is set');
      assert.equal(pod.metadata.deletionGracePeriodSeconds, 5);
      assert.match(await env.k.ok(['get', 'pod', 'graceful']), /Terminating/);
    } finally {
      await clock('resume');
    }
    await eventually(async () => !(await exists('pod', 'graceful')), 10_000, 'graceful pod gone');
    await env.k.ok(['create', 'configmap', 'col-a', '--from-literal=x=1']);
    await env.k.ok(['label', 'configmap', 'col-a', 'batch=1']);
    await env.k.ok(['create', 'configmap', 'col-b']);
    await env.k.ok(['label', 'configmap', 'col-b', 'batch=1']);
    assert.match(await env.k.ok(['delete', 'configmaps', '-l', 'batch=1']), /configmap "col-a" deleted/);
    assert.equal(await exists('cm', 'col-b'), false);
  });
});
