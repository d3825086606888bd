// Deployments and ReplicaSets through the real kubectl: rollouts within maxSurge/maxUnavailable, history and undo,
// pause/resume, proportional scaling mid-rollout, the progress deadline, and a ReplicaSet's adoption, release and
// choice of pods to delete.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

const neverReady = { 'bonsai.dev/never-ready': 'true' };

/** Follows pods of a namespace from a list's resourceVersion on, calling `check` on the state after every event. */
async function followPods(base: string, ns: string, check: (pods: Map<string, Json>) => void) {
  const list = (await (await fetch(`${base}/api/v1/namespaces/${ns}/pods`)).json()) as Json;
  const pods = new Map<string, Json>(list.items.map((p: Json) => [p.metadata.name, p]));
  check(pods);
  const ac = new AbortController();
  const res = await fetch(`${base}/api/v1/namespaces/${ns}/pods?watch=true&resourceVersion=${list.metadata.resourceVersion}`, { signal: ac.signal });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let failure: unknown;
  let events = 0;
  const pump = (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) return;
        buf += decoder.decode(r.value, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          const ev = JSON.parse(line) as Json;
          if (ev.type === 'DELETED') pods.delete(ev.object.metadata.name);
          else if (ev.type === 'ADDED' || ev.type === 'MODIFIED') pods.set(ev.object.metadata.name, ev.object);
          events++;
          try {
            check(pods);
          } catch (e) {
            failure ??= e;
          }
        }
      }
    } catch (e) {
      if (!ac.signal.aborted) failure ??= e;
    }
  })();
  return {
    get events() {
      return events;
    },
    async stop() {
      ac.abort();
      await pump;
      if (failure) throw failure;
    },
  };
}

const isReady = (p: Json) => (p.status?.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');
const live = (p: Json) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed';

describe('deployments and replicasets', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;
  const rsOf = async (ns: string, app: string) => (await getJson('rs', '-n', ns, '-l', `app=${app}`)).items as Json[];
  const rollout = (ns: string, name: string) => env.k.ok(['rollout', 'status', `deployment/${name}`, '-n', ns, '--timeout=30s']);

  it('rolls out within maxSurge and maxUnavailable at every step', async () => {
    await env.k.ok(['create', 'namespace', 'roll']);
    await env.k.ok(['create', 'deployment', 'web', '-n', 'roll', '--image=nginx:1.25', '--replicas=3']);
    assert.match(await rollout('roll', 'web'), /deployment "web" successfully rolled out/);
    // The default strategy, 25% / 25% of 3 replicas: maxSurge rounds up to 1, maxUnavailable down to 0.
    assert.deepEqual((await getJson('deployment', 'web', '-n', 'roll')).spec.strategy, { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } });
    const rsWatch = env.k.start(['get', 'rs', '-n', 'roll', '-w', '--output-watch-events', '-o',
      'jsonpath={.type} {.object.metadata.name} {.object.spec.replicas} {.object.status.availableReplicas}{"\\n"}']);
    await eventually(() => rsWatch.out().includes('ADDED web-'), 10_000, 'ReplicaSet watch started');
    let maxLive = 0;
    let minAvailable = Infinity;
    const seen = new Set<string>();
    const watch = await followPods(env.server.url, 'roll', (pods) => {
      const all = [...pods.values()];
      all.forEach((p) => seen.add(p.metadata.name));
      const running = all.filter(live);
      const available = running.filter(isReady);
      maxLive = Math.max(maxLive, running.length);
      minAvailable = Math.min(minAvailable, available.length);
      assert.ok(running.length <= 4, `${running.length} pods exceed replicas + maxSurge (4)`);
      assert.ok(available.length >= 3, `${available.length} available pods fall below replicas - maxUnavailable (3)`);
    });
    await env.k.ok(['set', 'image', 'deployment/web', '-n', 'roll', 'nginx=nginx:1.26']);
    assert.match(await rollout('roll', 'web'), /successfully rolled out/);
    const pods = (await getJson('pods', '-n', 'roll')).items as Json[];
    await eventually(async () => (await getJson('pods', '-n', 'roll')).items.length === 3, 15_000, 'old pods gone');
    await watch.stop();
    rsWatch.stop();
    assert.ok(watch.events > 12, `the watch followed the rollout (${watch.events} events)`);
    // Replay the ReplicaSet watch: desired replicas never above 3 + 1, available never below 3 - 0.
    const sets = new Map<string, { desired: number; available: number }>();
    let rsSteps = 0;
    for (const line of rsWatch.out().split('\n')) {
      const [type, name, desired, available] = line.split(' ');
      if (!type || !name) continue;
      if (type === 'DELETED') sets.delete(name);
      else sets.set(name, { desired: Number(desired), available: Number(available || 0) });
      const total = [...sets.values()].reduce((a, r) => ({ desired: a.desired + r.desired, available: a.available + r.available }), { desired: 0, available: 0 });
      assert.ok(total.desired <= 4, `ReplicaSets want ${total.desired} pods, above replicas + maxSurge (4)\n${rsWatch.out()}`);
      assert.ok(total.available >= 3, `ReplicaSets report ${total.available} available, below replicas - maxUnavailable (3)\n${rsWatch.out()}`);
      rsSteps++;
    }
    assert.ok(sets.size === 2 && rsSteps > 6, `the ReplicaSet watch followed the rollout\n${rsWatch.out()}`);
    assert.equal(maxLive, 4, 'the rollout used its one surge pod');
    assert.equal(minAvailable, 3);
    assert.ok(seen.size >= 6, `saw ${seen.size} pods: three old, three new`);
    assert.ok(pods.filter(live).every((p) => p.spec.containers[0].image === 'nginx:1.26'));
    const d = await getJson('deployment', 'web', '-n', 'roll');
    assert.deepEqual([d.status.replicas, d.status.updatedReplicas, d.status.readyReplicas, d.status.availableReplicas], [3, 3, 3, 3]);
    const progressing = d.status.conditions.find((c: Json) => c.type === 'Progressing');
    assert.equal(progressing.reason, 'NewReplicaSetAvailable');
    assert.match(progressing.message, /^ReplicaSet "web-[a-z0-9]+" has successfully progressed\.$/);
    assert.equal(d.status.conditions.find((c: Json) => c.type === 'Available').reason, 'MinimumReplicasAvailable');
    const rss = await rsOf('roll', 'web');
    const fresh = rss.find((rs) => rs.spec.replicas === 3)!;
    const hash = fresh.metadata.labels['pod-template-hash'];
    assert.equal(fresh.metadata.name, `web-${hash}`);
    assert.equal(fresh.spec.selector.matchLabels['pod-template-hash'], hash);
    assert.equal(fresh.metadata.annotations['deployment.kubernetes.io/revision'], '2');
    assert.equal(fresh.metadata.annotations['deployment.kubernetes.io/desired-replicas'], '3');
    assert.equal(fresh.metadata.annotations['deployment.kubernetes.io/max-replicas'], '4');
    const events = await env.k.ok(['get', 'events', '-n', 'roll', '--field-selector', 'involvedObject.kind=Deployment', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    assert.match(events, new RegExp(`ScalingReplicaSet: Scaled up replica set web-${hash} from 0 to 1`));
    assert.match(events, /ScalingReplicaSet: Scaled down replica set web-[a-z0-9]+ from 3 to 2/);
    const table = await env.k.ok(['get', 'deploy,rs', '-n', 'roll']);
    assert.match(table, /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE$/m);
    assert.match(table, /^deployment\.apps\/web\s+3\/3\s+3\s+3\s+\d+s$/m);
    assert.match(table, new RegExp(`^replicaset\\.apps/web-${hash}\\s+3\\s+3\\s+3\\s+\\d+s$`, 'm'));
    assert.match(table, /^replicaset\.apps\/web-[a-z0-9]+\s+0\s+0\s+0\s+\d+s$/m);
  });

  it('lists revisions with change causes and undoes to the old ReplicaSet as a new revision', async () => {
    await env.k.ok(['create', 'namespace', 'hist']);
    await env.k.ok(['create', 'deployment', 'web', '-n', 'hist', '--image=nginx:1.25', '--replicas=2']);
    await env.k.ok(['annotate', 'deployment/web', '-n', 'hist', 'kubernetes.io/change-cause=first: nginx 1.25']);
    await rollout('hist', 'web');
    await env.k.ok(['set', 'image', 'deployment/web', '-n', 'hist', 'nginx=nginx:1.26']);
    await env.k.ok(['annotate', 'deployment/web', '-n', 'hist', '--overwrite', 'kubernetes.io/change-cause=second: nginx 1.26']);
    await rollout('hist', 'web');
    const history = await eventually(async () => {
      const out = await env.k.ok(['rollout', 'history', 'deployment/web', '-n', 'hist']);
      return /^2\s+second: nginx 1\.26$/m.test(out) && out;
    }, 10_000, 'change cause of revision 2');
    assert.match(history, /^REVISION\s+CHANGE-CAUSE$/m);
    assert.match(history, /^1\s+first: nginx 1\.25$/m);
    const rev1 = (await rsOf('hist', 'web')).find((rs) => rs.metadata.annotations['deployment.kubernetes.io/revision'] === '1')!;
    assert.match(await env.k.ok(['rollout', 'undo', 'deployment/web', '-n', 'hist']), /rolled back/);
    await rollout('hist', 'web');
    const d = await getJson('deployment', 'web', '-n', 'hist');
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:1.25');
    await eventually(async () => (await getJson('deployment', 'web', '-n', 'hist')).metadata.annotations['deployment.kubernetes.io/revision'] === '3', 10_000, 'revision 3');
    const rss = await rsOf('hist', 'web');
    assert.equal(rss.length, 2, 'the old ReplicaSet is reused');
    const reused = rss.find((rs) => rs.metadata.name === rev1.metadata.name)!;
    assert.equal(reused.spec.replicas, 2);
    assert.equal(reused.metadata.annotations['deployment.kubernetes.io/revision'], '3');
    assert.equal(reused.metadata.annotations['deployment.kubernetes.io/revision-history'], '1');
    const after = await env.k.ok(['rollout', 'history', 'deployment/web', '-n', 'hist']);
    assert.match(after, /^2\s+second: nginx 1\.26$/m);
    assert.match(after, /^3\s+first: nginx 1\.25$/m);
    assert.doesNotMatch(after, /^1\s/m);
    const rev2 = await env.k.ok(['rollout', 'history', 'deployment/web', '-n', 'hist', '--revision=2']);
    assert.match(rev2, /Image:\s+nginx:1\.26/);
  });

  it('makes no rollout progress while paused and resumes it', async () => {
    await env.k.ok(['create', 'namespace', 'pause']);
    await env.k.ok(['create', 'deployment', 'web', '-n', 'pause', '--image=nginx:1.25', '--replicas=2']);
    await rollout('pause', 'web');
    await env.k.ok(['rollout', 'pause', 'deployment/web', '-n', 'pause']);
    await env.k.ok(['set', 'image', 'deployment/web', '-n', 'pause', 'nginx=nginx:1.26']);
    const paused = await eventually(async () => {
      const d = await getJson('deployment', 'web', '-n', 'pause');
      const c = d.status.conditions.find((x: Json) => x.type === 'Progressing');
      return d.status.observedGeneration === d.metadata.generation && c.reason === 'DeploymentPaused' && d;
    }, 10_000, 'paused condition');
    assert.equal(paused.status.conditions.find((x: Json) => x.type === 'Progressing').status, 'Unknown');
    // Scaling still works while paused.
    await env.k.ok(['scale', 'deployment/web', '-n', 'pause', '--replicas=3']);
    await eventually(async () => (await rsOf('pause', 'web'))[0]?.status.readyReplicas === 3, 10_000, 'scaled while paused');
    const rss = await rsOf('pause', 'web');
    assert.equal(rss.length, 1, 'no new ReplicaSet while paused');
    assert.equal(rss[0].spec.template.spec.containers[0].image, 'nginx:1.25');
    await env.k.ok(['rollout', 'resume', 'deployment/web', '-n', 'pause']);
    assert.match(await rollout('pause', 'web'), /successfully rolled out/);
    const after = await rsOf('pause', 'web');
    assert.equal(after.length, 2);
    assert.deepEqual(after.map((rs) => `${rs.spec.template.spec.containers[0].image}=${rs.spec.replicas}`).sort(), ['nginx:1.25=0', 'nginx:1.26=3']);
  });

  it('scales proportionally in the middle of a rollout', async () => {
    await env.k.ok(['create', 'namespace', 'prop']);
    await env.k.ok(['create', 'deployment', 'web', '-n', 'prop', '--image=nginx:1.25', '--replicas=4']);
    await rollout('prop', 'web');
    const oldName = (await rsOf('prop', 'web'))[0].metadata.name;
    // A template whose pods never become ready stalls the rollout: old 3, new 2 (25% surge and unavailability of 4).
    await env.k.ok(['patch', 'deployment', 'web', '-n', 'prop', '-p', JSON.stringify({ spec: { template: { metadata: { annotations: neverReady }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.26' }] } } } })]);
    const sizes = async () => Object.fromEntries((await rsOf('prop', 'web')).map((rs) => [rs.metadata.name === oldName ? 'old' : 'new', rs.spec.replicas]));
    await eventually(async () => {
      const s = await sizes();
      return s.old === 3 && s.new === 2;
    }, 10_000, 'stalled rollout at old 3, new 2');
    await env.k.ok(['scale', 'deployment/web', '-n', 'prop', '--replicas=10']);
    // 13 allowed (10 + 3 surge) over 5 sized for 5: old 3 -> 8, new 2 -> 5.
    await eventually(async () => {
      const s = await sizes();
      return s.old === 8 && s.new === 5;
    }, 10_000, 'proportional scale up to 8 + 5');
    await env.k.ok(['scale', 'deployment/web', '-n', 'prop', '--replicas=2']);
    // 3 allowed (2 + 1 surge) over 13: old 8 -> 2, new 5 -> 1.
    await eventually(async () => {
      const s = await sizes();
      return s.old === 2 && s.new === 1;
    }, 10_000, 'proportional scale down to 2 + 1');
    await env.k.ok(['patch', 'deployment', 'web', '-n', 'prop', '--type=json', '-p', JSON.stringify([
      { op: 'remove', path: '/spec/template/metadata/annotations' },
      { op: 'replace', path: '/spec/template/spec/containers/0/image', value: 'nginx:1.27' },
    ])]);
    assert.match(await rollout('prop', 'web'), /successfully rolled out/);
    await eventually(async () => {
      const pods = ((await getJson('pods', '-n', 'prop')).items as Json[]).filter(live);
      return pods.length === 2 && pods.every((p) => p.spec.containers[0].image === 'nginx:1.27' && isReady(p));
    }, 15_000, 'two ready nginx:1.27 pods');
    const d = await getJson('deployment', 'web', '-n', 'prop');
    assert.deepEqual([d.status.replicas, d.status.updatedReplicas, d.status.availableReplicas], [2, 2, 2]);
  });

  it('recreates: new pods only once every old pod is gone', async () => {
    await env.k.ok(['create', 'namespace', 'recreate']);
    await env.k.ok(['apply', '-n', 'recreate', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'db' },
        spec: {
          replicas: 2, strategy: { type: 'Recreate' }, selector: { matchLabels: { app: 'db' } },
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'postgres:15' }] } },
        },
      }),
    });
    await rollout('recreate', 'db');
    let overlap = 0;
    let sawNew = false;
    const watch = await followPods(env.server.url, 'recreate', (pods) => {
      const images = new Set([...pods.values()].map((p) => p.spec.containers[0].image));
      if (images.has('postgres:16')) sawNew = true;
      if (images.has('postgres:15') && images.has('postgres:16')) overlap++;
    });
    await env.k.ok(['set', 'image', 'deployment/db', '-n', 'recreate', 'db=postgres:16']);
    assert.match(await rollout('recreate', 'db'), /successfully rolled out/);
    await watch.stop();
    assert.ok(sawNew);
    assert.equal(overlap, 0, 'old and new pods never exist at the same time');
    const events = await env.k.ok(['get', 'events', '-n', 'recreate', '--field-selector', 'involvedObject.kind=Deployment', '-o', 'jsonpath={range .items[*]}{.message}{"\\n"}{end}']);
    assert.match(events, /Scaled down replica set db-[a-z0-9]+ from 2 to 0\nScaled up replica set db-[a-z0-9]+ from 0 to 2/);
  });

  it('reports ProgressDeadlineExceeded and rollout status fails', async () => {
    await env.k.ok(['create', 'namespace', 'stuck']);
    await env.k.ok(['apply', '-n', 'stuck', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'stuck' },
        spec: {
          replicas: 2, progressDeadlineSeconds: 3, selector: { matchLabels: { app: 'stuck' } },
          template: { metadata: { labels: { app: 'stuck' }, annotations: neverReady }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      }),
    });
    const r = await env.k.run(['rollout', 'status', 'deployment/stuck', '-n', 'stuck', '--timeout=20s']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /error: deployment "stuck" exceeded its progress deadline/);
    const d = await getJson('deployment', 'stuck', '-n', 'stuck');
    const c = d.status.conditions.find((x: Json) => x.type === 'Progressing');
    assert.equal(c.status, 'False');
    assert.equal(c.reason, 'ProgressDeadlineExceeded');
    assert.match(c.message, /^ReplicaSet "stuck-[a-z0-9]+" has timed out progressing\.$/);
    const avail = d.status.conditions.find((x: Json) => x.type === 'Available');
    assert.deepEqual([avail.status, avail.reason, avail.message], ['False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.']);
    assert.equal(d.status.unavailableReplicas, 2);
  });

  it('adopts matching orphans, releases relabelled pods and deletes not-ready pods first', async () => {
    await env.k.ok(['create', 'namespace', 'rs']);
    const pod = (name: string, annotations: Record<string, string> = {}) => JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name, labels: { app: 'front' }, annotations }, spec: { containers: [{ name: 'c', image: 'nginx' }] },
    });
    // An older pod that runs but never becomes ready.
    await env.k.ok(['apply', '-n', 'rs', '-f', '-'], { input: pod('laggard', neverReady) });
    await eventually(async () => (await getJson('pod', 'laggard', '-n', 'rs')).status.phase === 'Running', 10_000, 'laggard running');
    await env.k.ok(['apply', '-n', 'rs', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'front' },
        spec: { replicas: 3, selector: { matchLabels: { app: 'front' } }, template: { metadata: { labels: { app: 'front' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
      }),
    });
    const rs = await eventually(async () => {
      const r = await getJson('rs', 'front', '-n', 'rs');
      return r.status?.readyReplicas === 2 && r.status.replicas === 3 && r;
    }, 10_000, 'two ready of three');
    const pods = (await getJson('pods', '-n', 'rs')).items as Json[];
    assert.equal(pods.length, 3, 'the orphan was adopted instead of creating a third pod');
    const laggard = pods.find((p) => p.metadata.name === 'laggard')!;
    assert.equal(laggard.metadata.ownerReferences[0].uid, rs.metadata.uid);
    assert.equal(laggard.metadata.ownerReferences[0].controller, true);
    // Scaling down removes the not-ready pod although it is the oldest.
    await env.k.ok(['scale', 'rs/front', '-n', 'rs', '--replicas=2']);
    await eventually(async () => (await env.k.run(['get', 'pod', 'laggard', '-n', 'rs'])).code !== 0, 15_000, 'laggard deleted');
    const kept = ((await getJson('pods', '-n', 'rs')).items as Json[]).filter(live);
    assert.equal(kept.length, 2);
    // A pod relabelled out of the selector is released and replaced.
    const victim = kept[0].metadata.name as string;
    await env.k.ok(['label', 'pod', victim, '-n', 'rs', '--overwrite', 'app=elsewhere']);
    await eventually(async () => !(await getJson('pod', victim, '-n', 'rs')).metadata.ownerReferences?.length, 10_000, 'released');
    await eventually(async () => ((await getJson('pods', '-n', 'rs', '-l', 'app=front')).items as Json[]).filter(live).length === 2, 10_000, 'replacement');
    const events = await env.k.ok(['get', 'events', '-n', 'rs', '--field-selector', 'involvedObject.kind=ReplicaSet', '-o', 'jsonpath={range .items[*]}{.reason}: {.message}{"\\n"}{end}']);
    assert.match(events, /SuccessfulCreate: Created pod: front-[a-z0-9]{5}/);
    assert.match(events, /SuccessfulDelete: Deleted pod: laggard/);
  });
});

describe('deployment progress deadline on a fast clock', () => {
  // 30x: a 60 s deadline passes in about 2 s of real time; nothing but the controller's own timer notices it.
  const env = useKubectlServer({ args: [...noAddons, '--clock-speed', '30'] });

  it('times out after progressDeadlineSeconds of clock time', async () => {
    await env.k.ok(['apply', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'slow' },
        spec: {
          replicas: 1, progressDeadlineSeconds: 60, selector: { matchLabels: { app: 'slow' } },
          template: { metadata: { labels: { app: 'slow' }, annotations: neverReady }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
        },
      }),
    });
    const d = await eventually(async () => {
      const x = JSON.parse(await env.k.ok(['get', 'deployment', 'slow', '-o', 'json'])) as Json;
      const c = (x.status?.conditions ?? []).find((y: Json) => y.type === 'Progressing');
      return c?.reason === 'ProgressDeadlineExceeded' && x;
    }, 15_000, 'ProgressDeadlineExceeded');
    const c = d.status.conditions.find((y: Json) => y.type === 'Progressing');
    const created = Date.parse(d.metadata.creationTimestamp);
    const elapsed = Date.parse(c.lastTransitionTime) - created;
    // Not before the deadline, in the cluster's clock time (how late after it depends on the machine's load).
    assert.ok(elapsed >= 59_000, `timed out ${elapsed} ms of clock time after creation`);
  });
});
