// kube-controller-manager's root-ca-certificate-publisher through the real kubectl: every namespace, old and new,
// holds ConfigMap kube-root-ca.crt with the CA kubectl itself trusts (--tls: the kubeconfig's
// certificate-authority-data) and upstream's description; deleted, it comes back; changed, it is set back (an
// annotation of one's own stays); and a pod's service-account files carry the same certificate.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';

type Json = Record<string, any>;
const description = 'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

describe('kube-root-ca.crt in every namespace', () => {
  const env = useKubectlServer({ args: ['--tls', '--nodes', '1'] });
  const k = () => env.k;
  const rootCa = async (ns: string): Promise<Json | undefined> => {
    const r = await k().run(['get', 'configmap', 'kube-root-ca.crt', '-n', ns, '-o', 'json']);
    return r.code === 0 ? (JSON.parse(r.stdout) as Json) : undefined;
  };
  const kubeconfigCa = () => {
    const m = /certificate-authority-data:\s*(\S+)/.exec(readFileSync(env.server.kubeconfig, 'utf8'));
    assert.ok(m, 'the kubeconfig carries its CA');
    return Buffer.from(m[1], 'base64').toString('utf8');
  };

  it('publishes the cluster CA in every namespace, and puts it back when deleted or changed', async () => {
    const ca = kubeconfigCa();
    for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) {
      const cm = await eventually(() => rootCa(ns), 20_000, `kube-root-ca.crt in ${ns}`);
      assert.equal(cm.data['ca.crt'].trim(), ca.trim());
      assert.deepEqual(cm.metadata.annotations, { 'kubernetes.io/description': description });
    }
    await k().ok(['create', 'namespace', 'team']);
    await eventually(() => rootCa('team'), 20_000, 'kube-root-ca.crt in a new namespace');
    assert.match(await k().ok(['get', 'configmaps', '-n', 'team']), /^NAME\s+DATA\s+AGE\nkube-root-ca\.crt\s+1\s+\S+\n$/);

    const first = (await rootCa('team'))!;
    await k().ok(['delete', 'configmap', 'kube-root-ca.crt', '-n', 'team']);
    const again = await eventually(async () => {
      const cm = await rootCa('team');
      return cm && cm.metadata.uid !== first.metadata.uid ? cm : undefined;
    }, 20_000, 'kube-root-ca.crt created again');
    assert.equal(again.data['ca.crt'], first.data['ca.crt']);

    await k().ok(['patch', 'configmap', 'kube-root-ca.crt', '-n', 'team', '--type=merge', '-p', '{"data":{"ca.crt":"forged","extra":"x"},"metadata":{"annotations":{"kubernetes.io/description":"mine","team":"a"}}}']);
    const reset = await eventually(async () => {
      const cm = await rootCa('team');
      return cm && cm.data['ca.crt'] === first.data['ca.crt'] ? cm : undefined;
    }, 20_000, 'kube-root-ca.crt set back');
    assert.deepEqual(Object.keys(reset.data), ['ca.crt']);
    assert.deepEqual(reset.metadata.annotations, { 'kubernetes.io/description': description, team: 'a' });
  });

  it("gives a pod's service-account files the same certificate", async () => {
    await k().ok(['run', 'reader', '--image=busybox', '--restart=Never', '--', 'sleep', '3600']);
    await k().ok(['wait', '--for=condition=Ready', 'pod/reader', '--timeout=60s']);
    const inPod = await k().ok(['exec', 'reader', '--', 'cat', '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt']);
    assert.equal(inPod.trim(), kubeconfigCa().trim());
  });
});
