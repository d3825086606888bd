// The runtime against a whole in-process Bonsai (scheduler, kubelets, endpoint controllers): a Deployment's three
// ready pods behind a Service answer wget in turn; projected and downward-API volumes; service link variables.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useBonsai } from '../api/http.js';
import { eventually } from '../helpers/kubectl.js';
import { clientFor } from '../../src/client/client.js';
import { runtimeFor } from '../../src/api/streaming/runtime.js';
import type { Session } from '../../src/exec/types.js';

const NS = '/api/v1/namespaces/default';

describe('exec in a running cluster', () => {
  const { env, req } = useBonsai({ cluster: { nodes: 2 } });

  async function run(pod: string, command: string[]): Promise<{ exitCode: number; error?: string; out: string; err: string }> {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    const s: Session = {
      client: clientFor(env.b.registry), namespace: 'default', pod, container: 'c', command, tty: false,
      stdout: { write: (d) => out.push(Buffer.from(d)) }, stderr: { write: (d) => err.push(Buffer.from(d)) },
      onResize: () => undefined, signal: new AbortController().signal,
    };
    const o = await (await runtimeFor(env.b.registry)).exec(s);
    return { ...o, out: Buffer.concat(out).toString(), err: Buffer.concat(err).toString() };
  }

  it('wget to a Service name reaches its three replicas round robin', async () => {
    assert.equal((await req('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'hello' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'hello' } }, template: { metadata: { labels: { app: 'hello' } }, spec: { containers: [{ name: 'c', image: 'registry.example/hello:2', ports: [{ containerPort: 8080 }] }] } } },
    })).status, 201);
    assert.equal((await req('POST', `${NS}/services`, { metadata: { name: 'hello' }, spec: { selector: { app: 'hello' }, ports: [{ port: 80, targetPort: 8080 }] } })).status, 201);
    assert.equal((await req('POST', `${NS}/configmaps`, { metadata: { name: 'settings' }, data: { mode: 'teaching' } })).status, 201);
    assert.equal((await req('POST', `${NS}/pods`, {
      metadata: { name: 'shell', labels: { role: 'client' } },
      spec: {
        containers: [{
          name: 'c', image: 'busybox', command: ['sleep', '3600'], resources: { limits: { memory: '64Mi' } },
          volumeMounts: [{ name: 'all', mountPath: '/etc/all' }, { name: 'info', mountPath: '/etc/podinfo' }],
        }],
        volumes: [
          { name: 'all', projected: { sources: [{ configMap: { name: 'settings' } }, { downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } }] } },
          { name: 'info', downwardAPI: { items: [{ path: 'name', fieldRef: { fieldPath: 'metadata.name' } }, { path: 'mem', resourceFieldRef: { containerName: 'c', resource: 'limits.memory', divisor: '1Mi' } }] } },
        ],
      },
    })).status, 201);
    await eventually(async () => {
      const slices = (await req('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dhello')).body.items ?? [];
      const ready = slices.flatMap((s: { endpoints?: { conditions?: { ready?: boolean } }[] }) => s.endpoints ?? []).filter((e: { conditions?: { ready?: boolean } }) => e.conditions?.ready);
      const shell = (await req('GET', `${NS}/pods/shell`)).body;
      return ready.length === 3 && shell.status?.containerStatuses?.[0]?.state?.running;
    }, 15_000, 'three ready endpoints and a running shell pod');
    const names = new Set<string>();
    for (let i = 0; i < 3; i++) {
      const r = await run('shell', ['wget', '-qO-', 'hello']);
      assert.equal(r.exitCode, 0, r.err);
      names.add(/^pod: (\S+)$/m.exec(r.out)![1]);
    }
    assert.equal(names.size, 3, [...names].join(' '));
    const env1 = await run('shell', ['sh', '-c', 'echo $HELLO_SERVICE_HOST:$HELLO_SERVICE_PORT $KUBERNETES_SERVICE_HOST']);
    const svcIp = (await req('GET', `${NS}/services/hello`)).body.spec.clusterIP;
    assert.equal(env1.out, `${svcIp}:80 10.96.0.1\n`);
    assert.equal((await run('shell', ['cat', '/etc/all/mode'])).out, 'teaching');
    assert.equal((await run('shell', ['cat', '/etc/all/labels'])).out, 'role="client"');
    assert.equal((await run('shell', ['cat', '/etc/podinfo/name', '/etc/podinfo/mem'])).out, 'shell64');
    const ns = await run('shell', ['nslookup', 'hello.default.svc.cluster.local']);
    assert.match(ns.out, new RegExp(`Address: ${svcIp.replace(/\./g, '\\.')}\n`));
  });
});
