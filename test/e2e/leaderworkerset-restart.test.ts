// LeaderWorkerSet as upstream through kubectl: with the default restart policy (RecreateGroupOnPodRestart) deleting
// one worker pod recreates its whole group (the leader is deleted, which takes the group with it); with `None` only
// that pod comes back. The LWS webhook refuses what upstream's refuses, with its texts.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;

const fast = { 'bonsai.dev/pull-seconds': '0', 'bonsai.dev/start-seconds': '0', 'bonsai.dev/ready-seconds': '0.5' };

function lws(name: string, template: Json = {}, spec: Json = {}): string {
  return JSON.stringify({
    apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', metadata: { name },
    spec: {
      replicas: 1, ...spec,
      leaderWorkerTemplate: { size: 3, ...template, workerTemplate: { metadata: { annotations: fast }, spec: { containers: [{ name: 'w', image: 'busybox', command: ['sleep', '100000'] }] } } },
    },
  });
}

const ready = (p: Json) => p.status?.phase === 'Running' && (p.status.conditions ?? []).some((c: Json) => c.type === 'Ready' && c.status === 'True');

describe('leaderworkerset restart policy and webhook', () => {
  const env = useKubectlServer({ args: ['--addons', 'lws'] });
  const pods = async (set: string) => ((JSON.parse(await env.k.ok(['get', 'pods', '-l', `leaderworkerset.sigs.k8s.io/name=${set}`, '-o', 'json'])) as Json).items as Json[])
    .filter((p) => !p.metadata.deletionTimestamp);
  const uids = async (set: string) => new Map((await pods(set)).map((p) => [p.metadata.name as string, p.metadata.uid as string]));
  const allReady = async (set: string, n: number) => {
    const ps = await pods(set);
    return ps.length === n && ps.every(ready);
  };
  const create = async (manifest: string) => {
    await eventually(async () => (await env.k.run(['get', 'crd', 'leaderworkersets.leaderworkerset.x-k8s.io'])).code === 0, 30_000, 'the LWS CRD');
    return eventually(async () => {
      const r = await env.k.run(['create', '-f', '-'], { input: manifest });
      return (r.code === 0 || r.stderr.includes('denied the request')) && r;
    }, 15_000, 'LeaderWorkerSet created or refused');
  };

  it('deleting a worker pod recreates its whole group (RecreateGroupOnPodRestart, the default)', async () => {
    await create(lws('infer'));
    await eventually(() => allReady('infer', 3), 30_000, '3 pods ready');
    assert.equal(JSON.parse(await env.k.ok(['get', 'lws', 'infer', '-o', 'json'])).spec.leaderWorkerTemplate.restartPolicy, 'RecreateGroupOnPodRestart');
    const first = await uids('infer');
    // --wait=false: the simulated pod is gone (and its StatefulSet's successor there) before kubectl starts waiting.
    await env.k.ok(['delete', 'pod', 'infer-0-2', '--wait=false']);
    await eventually(async () => {
      const now = await uids('infer');
      return now.size === 3 && [...now].every(([n, u]) => first.get(n) !== u) && allReady('infer', 3);
    }, 30_000, 'every pod of group 0 replaced and ready');
    const events = await env.k.ok(['get', 'events', '--field-selector', 'reason=RecreateGroup', '-o', 'jsonpath={.items[*].message}']);
    assert.match(events, /Worker pod infer-0-2 failed, deleted leader pod infer-0 to recreate group 0/);
  });

  it('with restartPolicy None, only the deleted worker comes back', async () => {
    await create(lws('solo', { restartPolicy: 'None' }));
    await eventually(() => allReady('solo', 3), 30_000, '3 pods ready');
    const first = await uids('solo');
    await env.k.ok(['delete', 'pod', 'solo-0-2', '--wait=false']);
    const now = await eventually(async () => {
      const m = await uids('solo');
      return m.size === 3 && m.get('solo-0-2') !== first.get('solo-0-2') && m;
    }, 30_000, 'solo-0-2 recreated');
    assert.equal(now.get('solo-0'), first.get('solo-0'));
    assert.equal(now.get('solo-0-1'), first.get('solo-0-1'));
  });

  it('the webhook refuses a sub-group size that does not divide the group, and rolling-update numbers both 0', async () => {
    const sub = await create(lws('subs', { size: 5, subGroupPolicy: { subGroupSize: 3 } }));
    assert.equal(sub.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": admission webhook "vleaderworkerset.kb.io" denied the request: '
      + 'spec.leaderWorkerTemplate.SubGroupPolicy.subGroupSize: Invalid value: 3: size or size - 1 must be divisible by subGroupSize');
    const ru = await create(lws('zero', {}, { rolloutStrategy: { type: 'RollingUpdate', rollingUpdateConfiguration: { maxUnavailable: 0, maxSurge: 0 } } }));
    assert.match(ru.stderr, /denied the request: spec\.rolloutStrategy\.rollingUpdateConfiguration\.maxUnavailable: Invalid value: 0: must not be 0 when `maxSurge` is 0$/m);
    // On update: the sub-group size cannot be added later.
    await create(lws('later'));
    const r = await env.k.run(['patch', 'lws', 'later', '--type', 'merge', '-p', '{"spec":{"leaderWorkerTemplate":{"subGroupPolicy":{"subGroupSize":3}}}}']);
    assert.match(r.stderr, /^Error from server \(Forbidden\): admission webhook "vleaderworkerset\.kb\.io" denied the request: spec\.leaderWorkerTemplate\.SubGroupPolicy\.subGroupSize: Invalid value: 3: cannot enable subGroupSize after the lws is already created$/m);
  });
});
