// Knative Serving's release manifests (v1.23.0, test/fixtures/ecosystem/knative-serving/, provenance in SOURCE.md)
// install as its docs say: `kubectl apply -f serving-crds.yaml`, `kubectl apply -f serving-core.yaml`, the Kourier
// networking layer (`kubectl apply -f kourier.yaml`) and the config-network patch that selects it; every Deployment
// becomes Available; re-applying every file writes nothing; a Knative Service is accepted (its webhooks are
// simulated: allowed, with a warning; no Knative controller runs, so it gets no Revision), and so are ordinary objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { assertEveryObject, assertOrdinaryWorkloads, assertReapplyWritesNothing, fixture } from '../helpers/ecosystem.js';

const crds = fixture('knative-serving', 'serving-crds.yaml');
const core = fixture('knative-serving', 'serving-core.yaml');
const kourier = fixture('knative-serving', 'kourier.yaml');

// kubectl's three-way strategic merge always carries a PodDisruptionBudget's selector (patch strategy "replace"), so
// kube-apiserver's kubectl prints "configured" for one as well; the object is not written (checked below).
const pdbConfigured = (name: string, verb: string) => name.startsWith('poddisruptionbudget.policy/') && verb === 'configured';

const helloService = `apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: hello, namespace: default}
spec:
  template:
    spec:
      containers:
      - image: ghcr.io/knative/helloworld-go:latest
        ports: [{containerPort: 8080}]
        env: [{name: TARGET, value: World}]
`;

describe('Knative Serving installs from its release manifests', () => {
  const env = useKubectlServer();

  it('applies the CRDs, the core and Kourier, every object created, and every Deployment becomes Available', async () => {
    assertEveryObject(crds, await env.k.ok(['apply', '-f', crds]), /^created$/);
    // serving-core.yaml carries the CRDs again (the release builds it from all of config/core).
    assertEveryObject(core, await env.k.ok(['apply', '-f', core]), /^created$/, (name, verb) => name.startsWith('customresourcedefinition.') && verb === 'unchanged');
    assertEveryObject(kourier, await env.k.ok(['apply', '-f', kourier]), /^created$/);
    const patched = await env.k.ok(['patch', 'configmap/config-network', '--namespace', 'knative-serving', '--type', 'merge',
      '--patch', '{"data":{"ingress-class":"kourier.ingress.networking.knative.dev"}}']);
    assert.equal(patched.trim(), 'configmap/config-network patched');
    await env.k.ok(['wait', '--for=condition=Available', 'deployment', '--all', '-n', 'knative-serving', '--timeout=120s']);
    await env.k.ok(['wait', '--for=condition=Available', 'deployment', '--all', '-n', 'kourier-system', '--timeout=120s']);
    const names = await env.k.ok(['get', 'deployments', '-n', 'knative-serving', '-o', 'jsonpath={.items[*].metadata.name}']);
    assert.deepEqual(names.split(' ').sort(), ['activator', 'autoscaler', 'controller', 'net-kourier-controller', 'webhook']);
  });

  it('a second apply of every file writes nothing', async () => {
    for (const file of [crds, core, kourier]) await assertReapplyWritesNothing(env.k, file, false, pdbConfigured);
    // The patch made after the install stays: the manifests never set the key.
    assert.equal(await env.k.ok(['get', 'configmap/config-network', '-n', 'knative-serving', '-o', 'jsonpath={.data.ingress-class}']), 'kourier.ingress.networking.knative.dev');
  });

  it('accepts a Knative Service, with its CRD defaults', async () => {
    const r = await env.k.run(['apply', '-f', '-'], { input: helloService });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'service.serving.knative.dev/hello created');
    assert.match(r.stderr, /^Warning: webhook "webhook\.serving\.knative\.dev" is served by simulated pods \(service knative-serving\/webhook\)/m);
    assert.equal(await env.k.ok(['get', 'ksvc', 'hello', '-o', 'jsonpath={.spec.template.spec.containers[0].ports[0].protocol}']), 'TCP');
  });

  it('still accepts ordinary Namespaces, Deployments, Jobs and Pods', async () => {
    await assertOrdinaryWorkloads(env.k, 'apps');
  });
});
