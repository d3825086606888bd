// Kueue's release manifests (v0.19.2, test/fixtures/ecosystem/kueue/, provenance in SOURCE.md) install as its docs
// say (`kubectl apply --server-side -f manifests.yaml`, then wait for kueue-controller-manager), a second apply
// writes nothing, and the cluster stays usable: Kueue's quick-start objects (ResourceFlavor, ClusterQueue,
// LocalQueue, a Job labelled with the queue) are accepted, and so are ordinary Pods, Deployments, Jobs and
// Namespaces although 40-odd Kueue webhooks match them (simulated: allowed, with a warning). Kueue's controller does
// not run, so nothing admits the Job: it stays suspended as the quick-start creates it (upstream, Kueue's mutating
// webhook for Jobs would also set `suspend: true` on a Job created without it; the simulation patches nothing).
// With --simulated-webhooks fail, the same Job is refused with upstream's text for a webhook nobody serves.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { assertEveryObject, assertOrdinaryWorkloads, assertReapplyWritesNothing, fixture } from '../helpers/ecosystem.js';

const manifests = fixture('kueue', 'manifests.yaml');

const quickStart = `apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: default-flavor}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cluster-queue}
spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: ["cpu", "memory"]
    flavors:
    - name: default-flavor
      resources:
      - {name: cpu, nominalQuota: 9}
      - {name: memory, nominalQuota: 36Gi}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {namespace: default, name: user-queue}
spec: {clusterQueue: cluster-queue}
`;

const sampleJob = `apiVersion: batch/v1
kind: Job
metadata:
  name: sample-job
  namespace: default
  labels: {kueue.x-k8s.io/queue-name: user-queue}
spec:
  parallelism: 3
  completions: 3
  suspend: true
  template:
    spec:
      containers:
      - name: dummy-job
        image: registry.k8s.io/e2e-test-images/agnhost:2.53
        command: ["/bin/sh"]
        args: ["-c", "sleep 30"]
        resources:
          requests: {cpu: 1, memory: "200Mi"}
      restartPolicy: Never
`;

describe('Kueue installs from its release manifests', () => {
  const env = useKubectlServer();

  it('applies server-side, every object created, and the controller Deployment becomes Available', async () => {
    assertEveryObject(manifests, await env.k.ok(['apply', '--server-side', '-f', manifests]), /^serverside-applied$/);
    await env.k.ok(['wait', '--for=condition=Available', 'deployment/kueue-controller-manager', '-n', 'kueue-system', '--timeout=120s']);
    // The visibility API's APIServices point at the controller's Service: registered, not served by anything.
    const available = await env.k.ok(['get', 'apiservice', 'v1beta2.visibility.kueue.x-k8s.io', '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].status}']);
    assert.equal(available, 'False');
  });

  it('a second server-side apply writes nothing', async () => {
    await assertReapplyWritesNothing(env.k, manifests, true);
  });

  it("accepts Kueue's quick-start queues and a queued Job, which stays suspended", async () => {
    const out = await env.k.ok(['apply', '-f', '-'], { input: quickStart });
    assert.match(out, /^resourceflavor\.kueue\.x-k8s\.io\/default-flavor created$/m);
    assert.match(out, /^clusterqueue\.kueue\.x-k8s\.io\/cluster-queue created$/m);
    assert.match(out, /^localqueue\.kueue\.x-k8s\.io\/user-queue created$/m);
    const r = await env.k.run(['create', '-f', '-'], { input: sampleJob });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^Warning: webhook "mjob\.kb\.io" is served by simulated pods \(service kueue-system\/kueue-webhook-service\)/m);
    assert.equal(await env.k.ok(['get', 'job', 'sample-job', '-o', 'jsonpath={.spec.suspend}']), 'true');
    assert.equal(await env.k.ok(['get', 'pods', '-l', 'job-name=sample-job', '-o', 'name']), '');
  });

  it('still accepts ordinary Namespaces, Deployments, Jobs and Pods', async () => {
    await assertOrdinaryWorkloads(env.k, 'team-a');
  });
});

describe('Kueue with --simulated-webhooks fail', () => {
  const env = useKubectlServer({ args: ['--simulated-webhooks', 'fail'] });

  it("refuses a queued Job with upstream's text for a webhook nothing serves", async () => {
    await env.k.ok(['apply', '--server-side', '-f', manifests]);
    await env.k.ok(['wait', '--for=condition=Available', 'deployment/kueue-controller-manager', '-n', 'kueue-system', '--timeout=120s']);
    const err = await env.k.fails(['create', '-f', '-'], { input: sampleJob });
    assert.match(err, /Internal error occurred: failed calling webhook "mjob\.kb\.io": failed to call webhook: Post "https:\/\/kueue-webhook-service\.kueue-system\.svc:443\/mutate-batch-v1-job\?timeout=10s": dial tcp [\d.]+:9443: connect: no route to host/);
  });
});
