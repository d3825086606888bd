// Gateway API's release bundles (v1.6.1, test/fixtures/ecosystem/gateway-api/, provenance in SOURCE.md) install as
// its docs say (`kubectl apply --server-side -f standard-install.yaml`, the same for experimental-install.yaml), and
// its safe-upgrades ValidatingAdmissionPolicy behaves as upstream's: it refuses the experimental CRDs over the
// standard ones ("delete the safe-upgrades VAP first", say the v1.5 release notes), then admits them once it is
// deleted; re-applying writes nothing; it refuses an older bundle-version CRD, never a later write of the current
// bundle. What users create next (GatewayClass, Gateway, HTTPRoute, GRPCRoute) is accepted.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';
import { appliedName, applyVerbs, assertEveryObject, assertReapplyWritesNothing, fixture, manifestObjects } from '../helpers/ecosystem.js';

const standard = fixture('gateway-api', 'standard-install.yaml');
const experimental = fixture('gateway-api', 'experimental-install.yaml');
const policy = 'safe-upgrades.gateway.networking.k8s.io';

const routes = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: example}
spec: {controllerName: example.com/gateway-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: example-gateway, namespace: default}
spec:
  gatewayClassName: example
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: example-route, namespace: default}
spec:
  parentRefs: [{name: example-gateway}]
  hostnames: ["www.example.com"]
  rules:
  - matches: [{path: {type: PathPrefix, value: /login}}]
    backendRefs: [{name: example-svc, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: example-grpc, namespace: default}
spec:
  parentRefs: [{name: example-gateway}]
  hostnames: ["grpc.example.com"]
  rules:
  - matches: [{method: {service: com.example.User, method: Login}}]
    backendRefs: [{name: grpc-svc, port: 50051}]
`;

const oldBundle = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: olds.gateway.networking.k8s.io
  annotations:
    api-approved.kubernetes.io: https://github.com/kubernetes-sigs/gateway-api/pull/3328
    gateway.networking.k8s.io/bundle-version: v1.2.0
    gateway.networking.k8s.io/channel: experimental
spec:
  group: gateway.networking.k8s.io
  scope: Namespaced
  names: {plural: olds, singular: old, kind: Old, listKind: OldList}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

describe('Gateway API installs from its release bundles', () => {
  const env = useKubectlServer();

  it('applies the standard channel server-side, every object created; a second apply writes nothing', async () => {
    assertEveryObject(standard, await env.k.ok(['apply', '--server-side', '-f', standard]), /^serverside-applied$/);
    const crds = manifestObjects(standard).filter((o) => o.kind === 'CustomResourceDefinition').map((o) => `crd/${o.metadata.name}`);
    await env.k.ok(['wait', '--for=condition=Established', ...crds, '--timeout=120s']);
    await assertReapplyWritesNothing(env.k, standard, true);
  });

  it('refuses the experimental channel over the standard one, as upstream, and installs it once the policy is deleted', async () => {
    const r = await env.k.run(['apply', '--server-side', '-f', experimental]);
    assert.notEqual(r.code, 0, r.stdout);
    const existing = manifestObjects(standard).filter((o) => o.kind === 'CustomResourceDefinition').map((o) => o.metadata.name as string);
    for (const name of existing) {
      assert.match(r.stderr, new RegExp(`^Error from server \\(Invalid\\): customresourcedefinitions\\.apiextensions\\.k8s\\.io "${name.replaceAll('.', '\\.')}" is forbidden: ValidatingAdmissionPolicy '${policy}' with binding '${policy}' denied request: Installing experimental CRDs on top of standard channel CRDs is prohibited by default\\.`, 'm'));
    }
    // What is new in the experimental channel (the x-k8s.io CRDs) and the policy itself went in.
    const applied = applyVerbs(r.stdout);
    for (const o of manifestObjects(experimental).filter((x) => !existing.includes(x.metadata.name))) assert.equal(applied.get(appliedName(o)), 'serverside-applied', appliedName(o));

    await env.k.ok(['delete', 'validatingadmissionpolicy', policy]);
    assertEveryObject(experimental, await env.k.ok(['apply', '--server-side', '-f', experimental]), /^serverside-applied$/);
    const channel = await env.k.ok(['get', 'crd', 'httproutes.gateway.networking.k8s.io', '-o', 'jsonpath={.metadata.annotations.gateway\\.networking\\.k8s\\.io/channel}']);
    assert.equal(channel, 'experimental');
    // The policy is back; re-applying the experimental bundle (now over experimental CRDs) writes nothing.
    await assertReapplyWritesNothing(env.k, experimental, true);
  });

  it('refuses an older bundle-version CRD, as the policy says', async () => {
    // The policy re-created by the last apply is in force once the server has loaded it (as upstream, shortly after).
    const err = await eventually(async () => {
      const r = await env.k.run(['apply', '--server-side', '-f', '-'], { input: oldBundle });
      if (r.code === 0) await env.k.ok(['delete', 'crd', 'olds.gateway.networking.k8s.io']);
      return r.code === 0 ? undefined : r.stderr;
    }, 20_000, 'the safe-upgrades policy in force');
    // A 422 whose one cause is the policy's message: kubectl prints it as "The <resource> "<name>" is invalid: : <message>".
    assert.match(err, /^The customresourcedefinitions "olds\.gateway\.networking\.k8s\.io" is invalid: : ValidatingAdmissionPolicy 'safe-upgrades\.gateway\.networking\.k8s\.io' with binding 'safe-upgrades\.gateway\.networking\.k8s\.io' denied request: Installing CRDs with version other than v0\.0\.0-dev or v1\.5\+ is prohibited by default/);
  });

  it('accepts a GatewayClass, a Gateway, an HTTPRoute and a GRPCRoute', async () => {
    const out = await env.k.ok(['apply', '--server-side', '-f', '-'], { input: routes });
    for (const o of ['gatewayclass.gateway.networking.k8s.io/example', 'gateway.gateway.networking.k8s.io/example-gateway',
      'httproute.gateway.networking.k8s.io/example-route', 'grpcroute.gateway.networking.k8s.io/example-grpc']) {
      assert.equal(applyVerbs(out).get(o), 'serverside-applied', out);
    }
    // The CRDs' defaults are filled in (a Gateway listener admits routes of its own namespace; a backendRef is a Service).
    assert.equal(await env.k.ok(['get', 'gateway', 'example-gateway', '-o', 'jsonpath={.spec.listeners[0].allowedRoutes.namespaces.from}']), 'Same');
    assert.equal(await env.k.ok(['get', 'httproute', 'example-route', '-o', 'jsonpath={.spec.rules[0].backendRefs[0].kind}']), 'Service');
    assert.equal(await env.k.ok(['get', 'grpcroute', 'example-grpc', '-o', 'jsonpath={.spec.rules[0].matches[0].method.type}']), 'Exact');
  });
});
