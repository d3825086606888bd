// Image pulls against the simulated registry with real kubectl (unknown tags of known images fail as on a real
// cluster, the annotation overrides, a stalled rollout undone), what well-known images log, and kube-system's
// contents (CoreDNS, kube-dns, kube-proxy, control-plane mirror pods) that leave user scheduling unchanged.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';

type Json = Record<string, any>;
const notFound = (ref: string) => `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;

describe('image pulls and kube-system', () => {
  const env = useKubectlServer();
  const json = async (...args: string[]) => JSON.parse(await env.k.ok([...args, '-o', 'json'])) as Json;

  it('fails an unknown tag of a known image with ErrImagePull then ImagePullBackOff, and pulls unknown repositories', async () => {
    await env.k.ok(['run', 'bad', '--image=nginx:nope']);
    await env.k.ok(['run', 'mine', '--image=example.com/team/app:v7']);
    await env.k.ok(['run', 'forced', '--image=nginx:1.14.2', '--annotations=bonsai.dev/image-pull=fail']);
    const waiting = await eventually(async () => {
      const st = (await json('get', 'pod', 'bad')).status?.containerStatuses?.[0]?.state?.waiting;
      return st?.reason === 'ImagePullBackOff' && st;
    }, 15_000, 'bad in ImagePullBackOff');
    assert.equal(waiting.message, `Back-off pulling image "nginx:nope": ErrImagePull: ${notFound('docker.io/library/nginx:nope')}`);
    assert.match(await env.k.ok(['get', 'pod', 'bad']), /^bad\s+0\/1\s+(ImagePullBackOff|ErrImagePull)\s+0\s+\d+s$/m);
    const events = (await json('get', 'events', '--field-selector', 'involvedObject.name=bad')).items as Json[];
    const lines = events.map((e) => `${e.type} ${e.reason} ${e.message}`);
    for (const l of [
      'Normal Pulling Pulling image "nginx:nope"',
      `Warning Failed Failed to pull image "nginx:nope": ${notFound('docker.io/library/nginx:nope')}`,
      'Warning Failed Error: ErrImagePull',
      'Normal BackOff Back-off pulling image "nginx:nope"',
      'Warning Failed Error: ImagePullBackOff',
    ]) assert.ok(lines.includes(l), `${l}\nin\n${lines.join('\n')}`);
    await eventually(async () => (await json('get', 'pod', 'mine')).status?.phase === 'Running', 10_000, 'an unknown repository pulls');
    await eventually(async () => (await json('get', 'pod', 'forced')).status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', 15_000, 'the annotation fails a known tag');
    await env.k.ok(['delete', 'pod', 'bad', 'mine', 'forced', '--wait=false']);
  });

  it('stalls a rollout on a missing tag, and rollout undo recovers', async () => {
    await env.k.ok(['create', 'deployment', 'web', '--image=nginx:1.25.3', '--replicas=3']);
    await env.k.ok(['rollout', 'status', 'deploy/web', '--timeout=30s']);
    await env.k.ok(['set', 'image', 'deploy/web', 'nginx=nginx:nope']);
    await eventually(async () => /ImagePullBackOff/.test(await env.k.ok(['get', 'pods', '-l', 'app=web'])), 15_000, 'a new pod backing off');
    const d = await json('get', 'deploy', 'web');
    assert.ok(d.status.availableReplicas >= 2, 'old replicas keep serving');
    assert.equal(d.status.updatedReplicas < 3 || d.status.unavailableReplicas > 0, true);
    await env.k.ok(['rollout', 'undo', 'deploy/web']);
    await env.k.ok(['rollout', 'status', 'deploy/web', '--timeout=30s']);
    await eventually(async () => {
      const pods = (await json('get', 'pods', '-l', 'app=web')).items as Json[];
      return pods.length === 3 && pods.every((p) => p.spec.containers[0].image === 'nginx:1.25.3' && p.status.phase === 'Running');
    }, 15_000, 'three nginx:1.25.3 pods');
    const pod = ((await json('get', 'pods', '-l', 'app=web')).items as Json[])[0].metadata.name;
    assert.match(await env.k.ok(['logs', pod]), /\[notice\] 1#1: start worker processes/);
    await env.k.ok(['delete', 'deploy', 'web']);
  });

  it('the documentation\'s pi Job prints the digits of pi', async () => {
    await env.k.ok(['create', 'job', 'pi', '--image=perl:5.34.0', '--', 'perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)']);
    await env.k.ok(['wait', '--for=condition=complete', 'job/pi', '--timeout=30s']);
    const out = (await env.k.ok(['logs', 'job/pi'])).trim();
    assert.equal(out.length, 2001);
    assert.ok(out.startsWith('3.14159265358979323846264338327950288419716939937510'));
    assert.ok(out.endsWith('59958133904780275901'));
  });

  it('kube-system holds CoreDNS, kube-dns, kube-proxy and the control-plane mirror pods', async () => {
    await eventually(async () => /^coredns\s+2\/2\s+2\s+2\s/m.test(await env.k.ok(['get', 'deploy', '-n', 'kube-system'])), 15_000, 'CoreDNS available');
    assert.match(await env.k.ok(['get', 'svc', '-n', 'kube-system']), /^kube-dns\s+ClusterIP\s+10\.96\.0\.10\s+<none>\s+53\/UDP,53\/TCP,9153\/TCP\s+\d+s$/m);
    await eventually(async () => /^kube-proxy\s+5\s+5\s+5\s+5\s+5\s+kubernetes\.io\/os=linux\s/m.test(await env.k.ok(['get', 'ds', '-n', 'kube-system'])), 15_000, 'kube-proxy on every node');
    const pods = (await json('get', 'pods', '-n', 'kube-system')).items as Json[];
    const mirrors = pods.filter((p) => p.metadata.annotations?.['kubernetes.io/config.mirror']);
    assert.deepEqual(mirrors.map((p) => p.metadata.labels.component).sort(), ['etcd', 'kube-apiserver', 'kube-controller-manager', 'kube-scheduler']);
    for (const m of mirrors) {
      assert.deepEqual(m.metadata.ownerReferences.map((o: Json) => `${o.kind}/${o.name}`), [`Node/${m.spec.nodeName}`]);
      assert.equal(m.metadata.name, `${m.metadata.labels.component}-${m.spec.nodeName}`);
    }
    assert.match(await env.k.ok(['logs', '-n', 'kube-system', 'deploy/coredns']), /^CoreDNS-1\.12\.0$/m);
    // A deleted mirror pod comes back, as the kubelet recreates it from its manifest.
    const etcd = mirrors.find((p) => p.metadata.labels.component === 'etcd')!;
    await env.k.ok(['delete', 'pod', '-n', 'kube-system', etcd.metadata.name]);
    await eventually(async () => (await env.k.run(['get', 'pod', '-n', 'kube-system', etcd.metadata.name])).code === 0, 10_000, 'etcd mirror pod recreated');
    // The scheduler leaves them out: a pod refusing to share a node with kube-proxy (on every node) still schedules.
    await env.k.ok(['apply', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'loner' },
      spec: {
        containers: [{ name: 'c', image: 'busybox:1.36', command: ['sleep', '3600'] }],
        affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { 'k8s-app': 'kube-proxy' } }, namespaces: ['kube-system'], topologyKey: 'kubernetes.io/hostname' }] } },
      },
    }) });
    await eventually(async () => (await json('get', 'pod', 'loner')).status?.phase === 'Running', 10_000, 'loner running');
    await env.k.ok(['delete', 'pod', 'loner', '--wait=false']);
  });
});
