// StatefulSets through the real kubectl: ordered creation with claims bound by the simulated provisioner, ordered
// scale-down, partitioned rolling updates, rollout history/undo, Parallel pod management, claim retention policy.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

interface SetOptions {
  replicas?: number;
  policy?: 'OrderedReady' | 'Parallel';
  annotations?: Record<string, string>;
  retention?: { whenDeleted?: string; whenScaled?: string };
  claims?: boolean;
}

const service = (name: string) => ({
  apiVersion: 'v1', kind: 'Service', metadata: { name },
  spec: { clusterIP: 'None', selector: { app: name }, ports: [{ port: 80, name: 'web' }] },
});

function statefulSet(name: string, o: SetOptions = {}): Json {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name },
    spec: {
      serviceName: name, replicas: o.replicas ?? 3, selector: { matchLabels: { app: name } },
      ...(o.policy ? { podManagementPolicy: o.policy } : {}),
      ...(o.retention ? { persistentVolumeClaimRetentionPolicy: o.retention } : {}),
      template: {
        metadata: { labels: { app: name }, annotations: o.annotations ?? {} },
        spec: { containers: [{ name: 'nginx', image: 'nginx:1.26', ...(o.claims === false ? {} : { volumeMounts: [{ name: 'www', mountPath: '/usr/share/nginx/html' }] }) }] },
      },
      ...(o.claims === false ? {} : {
        volumeClaimTemplates: [{ metadata: { name: 'www', labels: { tier: 'data' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      }),
    },
  };
}

const list = (...items: Json[]) => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
const isReady = (p: Json) => p.status?.phase === 'Running' && (p.status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');

describe('statefulsets', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const pods = async (app: string) => ((await getJson('pods', '-l', `app=${app}`)).items as Json[])
    .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
  const byName = (items: Json[]): Record<string, Json> => Object.fromEntries(items.map((p) => [p.metadata.name, p]));
  const allReady = async (app: string, names: string[]) => {
    const ps = await pods(app);
    return ps.length === names.length && ps.every((p, i) => p.metadata.name === names[i] && isReady(p) && !p.metadata.deletionTimestamp) ? ps : undefined;
  };

  it('creates web-0, web-1, web-2 in order, each after its predecessor is Ready, each with a bound claim', async () => {
    // Each pod takes a second to become Ready, so an eager controller would be caught creating the next one early.
    await env.k.ok(['apply', '-f', '-'], { input: list(service('web'), statefulSet('web', { annotations: { 'bonsai.dev/ready-seconds': '1' } })) });
    const seen = new Set<string>();
    const violations: string[] = [];
    const ps = await eventually(async () => {
      const now = byName(await pods('web'));
      for (const [i, name] of ['web-0', 'web-1', 'web-2'].entries()) {
        if (!now[name]) continue;
        seen.add(name);
        if (i > 0 && !(now[`web-${i - 1}`] && isReady(now[`web-${i - 1}`]))) violations.push(`${name} exists while web-${i - 1} is not Ready`);
      }
      return Object.values(now).filter(isReady).length === 3 ? Object.values(now) : undefined;
    }, 20_000, 'three ready pods');
    assert.deepEqual(violations, []);
    assert.equal(seen.size, 3);
    const readyAt = (p: Json) => Date.parse(p.status.conditions.find((c: Json) => c.type === 'Ready').lastTransitionTime);
    const created = (p: Json) => Date.parse(p.metadata.creationTimestamp);
    const [p0, p1, p2] = ps.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
    assert.ok(created(p1) >= readyAt(p0) && created(p2) >= readyAt(p1), 'each pod is created after its predecessor became Ready');
    for (const [i, p] of [p0, p1, p2].entries()) {
      assert.equal(p.spec.hostname, `web-${i}`);
      assert.equal(p.spec.subdomain, 'web');
      assert.equal(p.metadata.labels['statefulset.kubernetes.io/pod-name'], `web-${i}`);
      assert.equal(p.metadata.labels['apps.kubernetes.io/pod-index'], String(i));
      assert.match(p.metadata.labels['controller-revision-hash'], /^web-[a-z0-9]+$/);
      assert.deepEqual(p.spec.volumes.find((v: Json) => v.name === 'www'), { name: 'www', persistentVolumeClaim: { claimName: `www-web-${i}` } });
      assert.equal(p.metadata.ownerReferences[0].kind, 'StatefulSet');
    }
    const claims = await eventually(async () => {
      const items = (await getJson('pvc', '-l', 'app=web')).items as Json[];
      return items.length === 3 && items.every((c) => c.status.phase === 'Bound') ? items : undefined;
    }, 10_000, 'three bound claims');
    for (const c of claims) {
      assert.deepEqual(c.metadata.labels, { app: 'web', tier: 'data' });
      assert.equal(c.spec.storageClassName, 'standard');
      assert.equal(c.metadata.annotations['pv.kubernetes.io/bind-completed'], 'yes');
      assert.equal(c.metadata.annotations['volume.kubernetes.io/storage-provisioner'], 'bonsai.dev/simulated');
      assert.equal(c.spec.volumeName, `pvc-${c.metadata.uid}`);
      assert.equal(c.status.capacity.storage, '1Gi');
      const pv = await getJson('pv', c.spec.volumeName);
      assert.equal(pv.status.phase, 'Bound');
      assert.equal(pv.spec.claimRef.name, c.metadata.name);
      assert.equal(pv.spec.persistentVolumeReclaimPolicy, 'Delete');
      assert.equal(pv.metadata.annotations['pv.kubernetes.io/provisioned-by'], 'bonsai.dev/simulated');
    }
    const table = await env.k.ok(['get', 'sts,pvc']);
    assert.match(table, /^statefulset\.apps\/web\s+3\/3\s+\d+s$/m);
    assert.match(table, /^persistentvolumeclaim\/www-web-0\s+Bound\s+pvc-[0-9a-f-]+\s+1Gi\s+RWO\s+standard\s/m);
    assert.match(await env.k.ok(['rollout', 'status', 'statefulset/web', '--timeout=10s']), /partitioned roll out complete: 3 new pods have been updated/);
    const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=web,involvedObject.kind=StatefulSet']);
    assert.match(events, /SuccessfulCreate\s+statefulset\/web\s+create Pod web-0 in StatefulSet web successful/);
    assert.match(events, /SuccessfulCreate\s+statefulset\/web\s+create Claim www-web-0 Pod web-0 in StatefulSet web success/);
    assert.match(await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=www-web-1']), /ProvisioningSucceeded\s+persistentvolumeclaim\/www-web-1\s+Successfully provisioned volume pvc-/);
  });

  it('scales down from the highest ordinal, keeping claims; scaling up reuses them', async () => {
    const before = byName(await pods('web'));
    const claimUid = (await getJson('pvc', 'www-web-2')).metadata.uid;
    await env.k.ok(['scale', 'statefulset/web', '--replicas=2']);
    await eventually(() => allReady('web', ['web-0', 'web-1']), 15_000, 'web-2 removed');
    const after = byName(await pods('web'));
    assert.equal(after['web-0'].metadata.uid, before['web-0'].metadata.uid);
    assert.equal(after['web-1'].metadata.uid, before['web-1'].metadata.uid);
    assert.match(await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.kind=StatefulSet,reason=SuccessfulDelete']), /delete Pod web-2 in StatefulSet web successful/);
    assert.equal((await getJson('pvc', 'www-web-2')).status.phase, 'Bound', 'the claim of the removed pod stays (Retain)');
    await env.k.ok(['scale', 'statefulset/web', '--replicas=3']);
    await eventually(() => allReady('web', ['web-0', 'web-1', 'web-2']), 15_000, 'web-2 back');
    assert.equal((await getJson('pvc', 'www-web-2')).metadata.uid, claimUid, 'web-2 gets its old claim back');
  });

  it('updates only ordinals at or above the partition, and rolls back with rollout undo', async () => {
    const oldRev = (await getJson('sts', 'web')).status.currentRevision as string;
    await env.k.ok(['patch', 'statefulset/web', '-p', '{"spec":{"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}}}']);
    await env.k.ok(['set', 'image', 'statefulset/web', 'nginx=nginx:1.27']);
    const sts = await eventually(async () => {
      const s = await getJson('sts', 'web');
      return s.status.updatedReplicas === 1 && s.status.readyReplicas === 3 && s.status.observedGeneration === s.metadata.generation ? s : undefined;
    }, 15_000, 'one updated replica');
    const newRev = sts.status.updateRevision as string;
    assert.notEqual(newRev, oldRev);
    assert.equal(sts.status.currentRevision, oldRev);
    assert.equal(sts.status.currentReplicas, 2);
    const ps = byName(await eventually(() => allReady('web', ['web-0', 'web-1', 'web-2']), 15_000, 'pods ready'));
    assert.deepEqual(['web-0', 'web-1', 'web-2'].map((n) => [ps[n].spec.containers[0].image, ps[n].metadata.labels['controller-revision-hash']]),
      [['nginx:1.26', oldRev], ['nginx:1.26', oldRev], ['nginx:1.27', newRev]]);
    assert.match(await env.k.ok(['rollout', 'status', 'statefulset/web', '--timeout=10s']), /partitioned roll out complete: 1 new pods have been updated/);
    const history = await env.k.ok(['rollout', 'history', 'statefulset/web']);
    assert.match(history, /^1\s+<none>$/m);
    assert.match(history, /^2\s+<none>$/m);
    assert.match(await env.k.ok(['rollout', 'history', 'statefulset/web', '--revision=1']), /Image:\s+nginx:1\.26/);

    assert.match(await env.k.ok(['rollout', 'undo', 'statefulset/web']), /rolled back/);
    await eventually(async () => {
      const now = await allReady('web', ['web-0', 'web-1', 'web-2']);
      return now?.every((p) => p.spec.containers[0].image === 'nginx:1.26' && p.metadata.labels['controller-revision-hash'] === oldRev);
    }, 15_000, 'web-2 back at the first revision');
    const back = await getJson('sts', 'web');
    assert.equal(back.spec.template.spec.containers[0].image, 'nginx:1.26');
    assert.equal(back.status.updateRevision, oldRev);
    assert.match(await env.k.ok(['rollout', 'history', 'statefulset/web']), /^2\s+<none>\n3\s+<none>$/m);
    assert.match(await env.k.ok(['rollout', 'undo', 'statefulset/web', '--to-revision=3']), /skipped rollback \(current template already matches revision 3\)/);
  });

  it('rolls every pod, highest ordinal first, once the partition is 0', async () => {
    await env.k.ok(['patch', 'statefulset/web', '-p', '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}},"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}']);
    assert.match(await env.k.ok(['rollout', 'status', 'statefulset/web', '--timeout=30s']), /partitioned roll out complete: 3 new pods have been updated/);
    const s = await eventually(async () => {
      const x = await getJson('sts', 'web');
      return x.status.currentRevision === x.status.updateRevision ? x : undefined;
    }, 15_000, 'current revision caught up');
    assert.equal(s.status.currentReplicas, 3);
    // Each recreated pod needs a second to become Ready before the next lower ordinal is replaced.
    const ps = byName(await pods('web'));
    const created = (n: string) => Date.parse(ps[n].metadata.creationTimestamp);
    assert.ok(created('web-2') < created('web-1') && created('web-1') < created('web-0'), 'replaced from the highest ordinal down');
    assert.ok(Object.values(ps).every((p) => p.spec.containers[0].image === 'nginx:1.28'));
  });

  it('Parallel creates all pods at once, while OrderedReady waits on a pod that never becomes Ready', async () => {
    const stuck = { 'bonsai.dev/never-ready': 'true' };
    await env.k.ok(['apply', '-f', '-'], {
      input: list(
        statefulSet('par', { policy: 'Parallel', annotations: stuck, claims: false }),
        statefulSet('ord', { annotations: stuck, claims: false }),
      ),
    });
    await eventually(async () => {
      const ps = await pods('par');
      return ps.length === 3 && ps.every((p) => p.status.phase === 'Running');
    }, 15_000, 'three running Parallel pods');
    assert.deepEqual((await pods('ord')).map((p) => p.metadata.name), ['ord-0']);
    assert.equal((await getJson('sts', 'par')).status.readyReplicas ?? 0, 0);
  });

  it('replaces up to maxUnavailable pods at a time', async () => {
    const sts = statefulSet('mu', { replicas: 4, policy: 'Parallel', claims: false, annotations: { 'bonsai.dev/ready-seconds': '1' } });
    sts.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 2 } };
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify(sts) });
    await eventually(() => allReady('mu', ['mu-0', 'mu-1', 'mu-2', 'mu-3']), 15_000, 'mu pods ready');
    await env.k.ok(['set', 'image', 'statefulset/mu', 'nginx=nginx:1.27']);
    let most = 0;
    await eventually(async () => {
      const ps = await pods('mu');
      const unavailable = 4 - ps.filter((p) => isReady(p) && !p.metadata.deletionTimestamp).length;
      most = Math.max(most, unavailable);
      return ps.length === 4 && ps.every((p) => isReady(p) && p.spec.containers[0].image === 'nginx:1.27');
    }, 20_000, 'all mu pods updated');
    assert.equal(most, 2, 'two pods were down together, never more');
  });

  it('deletes claims of scaled-away pods with whenScaled=Delete, and all claims with the set with whenDeleted=Delete', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: list(service('db'), statefulSet('db', { replicas: 2, policy: 'Parallel', retention: { whenScaled: 'Delete', whenDeleted: 'Delete' } })) });
    await eventually(() => allReady('db', ['db-0', 'db-1']), 15_000, 'db pods ready');
    const claims = await eventually(async () => {
      const items = (await getJson('pvc', '-l', 'app=db')).items as Json[];
      return items.length === 2 && items.every((c) => c.status.phase === 'Bound') ? items : undefined;
    }, 10_000, 'db claims bound');
    for (const c of claims) assert.equal(c.metadata.ownerReferences?.[0]?.kind, 'StatefulSet', 'whenDeleted=Delete makes the set own the claim');
    const pv1 = claims.find((c) => c.metadata.name === 'www-db-1')!.spec.volumeName as string;
    await env.k.ok(['scale', 'statefulset/db', '--replicas=1']);
    await eventually(async () => (await env.k.run(['get', 'pvc', 'www-db-1'])).code !== 0, 15_000, 'claim of db-1 deleted');
    await eventually(async () => (await env.k.run(['get', 'pv', pv1])).code !== 0, 10_000, 'its volume deleted (reclaim Delete)');
    assert.equal((await getJson('pvc', 'www-db-0')).status.phase, 'Bound');
    await env.k.ok(['delete', 'statefulset/db']);
    await eventually(async () => ((await getJson('pvc', '-l', 'app=db')).items as Json[]).length === 0, 15_000, 'all db claims deleted with the set');
  });

  it('keeps a pod Pending while its claim names a class nobody provides, then starts it once the class exists', async () => {
    const set = statefulSet('docs', { replicas: 2 });
    set.spec.volumeClaimTemplates[0].spec.storageClassName = 'my-storage-class';
    await env.k.ok(['apply', '-f', '-'], { input: list(service('docs'), set) });
    const message = '0/5 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/5 nodes are available: 5 Preemption is not helpful for scheduling..';
    await eventually(async () => {
      const events = await env.k.ok(['get', 'events', '--field-selector', 'involvedObject.name=docs-0,reason=FailedScheduling', '-o', 'jsonpath={.items[*].message}']);
      return events.includes(message);
    }, 15_000, 'FailedScheduling for the unbound claim');
    const pending = await getJson('pod', 'docs-0');
    assert.equal(pending.status.phase, 'Pending');
    assert.equal(pending.spec.nodeName, undefined);
    assert.equal((await pods('docs')).length, 1, 'OrderedReady waits on docs-0');
    assert.equal((await getJson('pvc', 'www-docs-0')).status.phase, 'Pending');
    // A claim without a class gets the default one when it is created (DefaultStorageClass admission).
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'classless' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }) });
    assert.equal((await getJson('pvc', 'classless')).spec.storageClassName, 'standard');

    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'my-storage-class' }, provisioner: 'bonsai.dev/simulated', volumeBindingMode: 'Immediate' }) });
    await eventually(() => allReady('docs', ['docs-0', 'docs-1']), 30_000, 'docs-0 and docs-1 Ready once the class provisions');
    for (const n of ['www-docs-0', 'www-docs-1']) assert.equal((await getJson('pvc', n)).status.phase, 'Bound');
  });
});
