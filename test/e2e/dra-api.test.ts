// resource.k8s.io (Dynamic Resource Allocation) through real kubectl: DeviceClasses, ResourceSlices with attributes,
// capacity and shared counters, ResourceClaimTemplates and ResourceClaims; upstream's columns, defaults, field
// selectors and validation messages; v1beta1 and v1 views of the same objects; discovery and pods' claims.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

/** The rows of a `kubectl get` table without its AGE column. */
function rows(out: string): string[][] {
  const lines = out.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
  const age = lines[0].indexOf('AGE');
  return lines.map((r) => r.filter((_, i) => i !== age));
}

const deviceClass = `apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
`;

const slice = (node: string, consumes = true) => `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: ${node}-gpus
spec:
  driver: gpu.example.com
  nodeName: ${node}
  pool:
    name: ${node}
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      productName: {string: "NVIDIA H100 80GB HBM3"}
      driverVersion: {version: "550.54.15"}
      gpu.example.com/index: {int: 0}
    capacity:
      memory: {value: 80Gi}
${consumes ? '    consumesCounters:\n    - counterSet: gpu-0-counters\n      counters:\n        memory: {value: 80Gi}\n' : ''}`;

const counters = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-a-counters
spec:
  driver: gpu.example.com
  nodeName: node-a
  pool:
    name: node-a-counters
    resourceSliceCount: 1
  sharedCounters:
  - name: gpu-0-counters
    counters:
      memory: {value: 80Gi}
      multiprocessors: {value: "132"}
`;

const template = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: big-gpu
  namespace: default
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0
`;

const claim = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: one-gpu
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
`;

describe('resource.k8s.io', () => {
  // The resourceclaim controller would answer the status this suite writes by hand (it drops reservations of pods
  // that do not exist and makes claims for pods): the API is the subject here, so it does not run.
  const env = useKubectlServer({ args: [...noAddons, '--controllers', '*,-resourceclaim'] });

  it('lists the group in api-resources and serves its OpenAPI', async () => {
    const resources = await env.k.ok(['api-resources', '--api-group=resource.k8s.io']);
    assert.match(resources, /^deviceclasses\s+resource\.k8s\.io\/v1\s+false\s+DeviceClass$/m);
    assert.match(resources, /^resourceclaims\s+resource\.k8s\.io\/v1\s+true\s+ResourceClaim$/m);
    assert.match(resources, /^resourceclaimtemplates\s+resource\.k8s\.io\/v1\s+true\s+ResourceClaimTemplate$/m);
    assert.match(resources, /^resourceslices\s+resource\.k8s\.io\/v1\s+false\s+ResourceSlice$/m);
    assert.match(await env.k.ok(['api-versions']), /^resource\.k8s\.io\/v1beta1$/m);
    assert.match(await env.k.ok(['explain', 'resourceclaims.spec.devices.requests.exactly']), /deviceClassName/);
    assert.match(await env.k.ok(['explain', 'resourceslices.spec.devices', '--api-version=resource.k8s.io/v1beta1']), /basic/);
  });

  it('applies a class, slices, a template and a claim; prints upstream columns and defaults; re-applies as unchanged', async () => {
    const all = [deviceClass, slice('node-a'), counters, slice('node-b', false), template, claim].join('---\n');
    const applied = await env.k.ok(['apply', '-f', '-'], { input: all });
    assert.match(applied, /deviceclass\.resource\.k8s\.io\/gpu\.example\.com created/);
    assert.match(applied, /resourceclaim\.resource\.k8s\.io\/one-gpu created/);
    // The simulated GPU driver publishes its own slices and classes on this cluster: look at this test's driver only.
    assert.deepEqual(rows(await env.k.ok(['get', 'resourceslices', '--field-selector=spec.driver=gpu.example.com'])), [
      ['NAME', 'NODE', 'DRIVER', 'POOL'],
      ['node-a-counters', 'node-a', 'gpu.example.com', 'node-a-counters'],
      ['node-a-gpus', 'node-a', 'gpu.example.com', 'node-a'],
      ['node-b-gpus', 'node-b', 'gpu.example.com', 'node-b'],
    ]);
    assert.deepEqual(rows(await env.k.ok(['get', 'resourceclaims'])), [['NAME', 'STATE'], ['one-gpu', 'pending']]);
    assert.deepEqual(rows(await env.k.ok(['get', 'resourceclaimtemplates'])), [['NAME'], ['big-gpu']]);
    assert.deepEqual(rows(await env.k.ok(['get', 'deviceclass', 'gpu.example.com'])), [['NAME'], ['gpu.example.com']]);
    const yaml = await env.k.ok(['get', 'resourceclaim', 'one-gpu', '-o', 'yaml']);
    assert.match(yaml, /exactly:\n\s+allocationMode: ExactCount\n\s+count: 1\n\s+deviceClassName: gpu\.example\.com/);
    assert.match(yaml, /^status: \{\}$/m);
    assert.equal(await env.k.ok(['get', 'resourceslice', 'node-a-gpus', '-o', 'jsonpath={.spec.pool.generation} {.metadata.generation}']), '0 1');
    // A re-apply writes nothing. kubectl still sends a claim's (atomic) request list, which differs from the live one
    // by its defaults, and says "configured", as against kube-apiserver; the server's write is a no-op.
    const rv = () => env.k.ok(['get', 'resourceclaims,resourceclaimtemplates', '-o', 'jsonpath={.items[*].metadata.resourceVersion}']);
    const before = await rv();
    const again = await env.k.ok(['apply', '-f', '-'], { input: all });
    assert.equal(again.match(/unchanged/g)?.length, 4, again);
    assert.equal(await rv(), before);
    const described = await env.k.ok(['describe', 'resourceclaim', 'one-gpu']);
    assert.match(described, /^Name:\s+one-gpu$/m);
    assert.match(described, /Device Class Name:\s+gpu\.example\.com/);
  });

  it('takes an allocation and reservations through the status subresource, and keeps the allocation', async () => {
    const allocation = '{"devices":{"results":[{"request":"gpu","driver":"gpu.example.com","pool":"node-a","device":"gpu-0"}]}}';
    await env.k.ok(['patch', 'resourceclaim', 'one-gpu', '--subresource=status', '--type=merge', '-p', `{"status":{"allocation":${allocation},"reservedFor":[{"resource":"pods","name":"p","uid":"u-1"}]}}`]);
    assert.deepEqual(rows(await env.k.ok(['get', 'resourceclaim', 'one-gpu'])), [['NAME', 'STATE'], ['one-gpu', 'allocated,reserved']]);
    const moved = await env.k.fails(['patch', 'resourceclaim', 'one-gpu', '--subresource=status', '--type=merge', '-p', `{"status":{"allocation":${allocation.replace('gpu-0', 'gpu-1')}}}`]);
    assert.match(moved, /status\.allocation: Invalid value: .*: field is immutable/);
    const early = await env.k.fails(['patch', 'resourceclaim', 'one-gpu', '--subresource=status', '--type=merge', '-p', '{"status":{"allocation":null}}']);
    assert.match(early, /status\.reservedFor: Forbidden: may not be specified when `allocated` is not set/);
    // A driver's report on the device; clearing the allocation drops it.
    const reported = '{"status":{"devices":[{"driver":"gpu.example.com","pool":"node-a","device":"gpu-0","conditions":[{"type":"Ready","status":"True","reason":"Prepared","message":"","lastTransitionTime":"2026-01-01T00:00:00Z"}]}]}}';
    await env.k.ok(['patch', 'resourceclaim', 'one-gpu', '--subresource=status', '--type=merge', '-p', reported]);
    const stranger = await env.k.fails(['patch', 'resourceclaim', 'one-gpu', '--subresource=status', '--type=merge', '-p', reported.replace('gpu-0', 'gpu-9')]);
    assert.match(stranger, /status\.devices\[0\]: Invalid value: "gpu\.example\.com\/node-a\/gpu-9": must be an allocated device in the claim/);
    await env.k.ok(['patch', 'resourceclaim', 'one-gpu', '--subresource=status', '--type=merge', '-p', '{"status":{"allocation":null,"reservedFor":null}}']);
    assert.deepEqual(rows(await env.k.ok(['get', 'resourceclaim', 'one-gpu'])), [['NAME', 'STATE'], ['one-gpu', 'pending']]);
    assert.equal(await env.k.ok(['get', 'resourceclaim', 'one-gpu', '-o', 'jsonpath={.status}']), '{}');
  });

  it('selects slices by node and driver', async () => {
    const byNode = await env.k.ok(['get', 'resourceslices', '--field-selector=spec.nodeName=node-b', '-o', 'name']);
    assert.equal(byNode.trim(), 'resourceslice.resource.k8s.io/node-b-gpus');
    const byDriver = await env.k.ok(['get', 'resourceslices', '--field-selector=spec.driver=other.example.com', '-o', 'name']);
    assert.equal(byDriver.trim(), '');
    const err = await env.k.fails(['get', 'resourceslices', '--field-selector=spec.pool.name=node-a']);
    assert.match(err, /field label not supported: spec\.pool\.name/);
  });

  it('serves the same objects as v1beta1 and takes v1beta1 bodies', async () => {
    const beta = await env.k.ok(['get', 'resourceclaims.v1beta1.resource.k8s.io', 'one-gpu', '-o', 'jsonpath={.apiVersion} {.spec.devices.requests[0].deviceClassName} {.spec.devices.requests[0].count}']);
    assert.equal(beta, 'resource.k8s.io/v1beta1 gpu.example.com 1');
    const device = await env.k.ok(['get', 'resourceslices.v1beta1.resource.k8s.io', 'node-a-gpus', '-o', 'jsonpath={.spec.devices[0].basic.capacity.memory.value}']);
    assert.equal(device, '80Gi');
    const v1beta1Claim = `apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata:
  name: beta-claim
  namespace: default
spec:
  devices:
    requests:
    - name: gpus
      deviceClassName: gpu.example.com
      allocationMode: All
`;
    await env.k.ok(['apply', '-f', '-'], { input: v1beta1Claim });
    const v1 = await env.k.ok(['get', 'resourceclaims.v1.resource.k8s.io', 'beta-claim', '-o', 'jsonpath={.spec.devices.requests[0].exactly}']);
    assert.deepEqual(JSON.parse(v1), { allocationMode: 'All', deviceClassName: 'gpu.example.com' });
    const beta2 = await env.k.ok(['get', 'resourceclaims.v1beta2.resource.k8s.io', 'beta-claim', '-o', 'jsonpath={.apiVersion} {.spec.devices.requests[0].exactly.allocationMode}']);
    assert.equal(beta2, 'resource.k8s.io/v1beta2 All');
  });

  it('refuses invalid objects with upstream messages', async () => {
    const bad = `apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: bad
  namespace: default
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        count: 0
        allocationMode: All
        selectors:
        - cel:
            expression: device.nope == 1
    - name: gpu
      firstAvailable: []
`;
    const err = await env.k.fails(['apply', '-f', '-'], { input: bad.replace('count: 0', 'count: 2') });
    assert.match(err, /spec\.devices\.requests\[0\]\.exactly\.selectors\[0\]\.cel\.expression: Invalid value: "device\.nope == 1": compilation failed: ERROR: <input>:1:7: undefined field 'nope'/);
    assert.match(err, /spec\.devices\.requests\[0\]\.exactly\.count: Invalid value: 2: must not be specified when allocationMode is 'All'/);
    assert.match(err, /spec\.devices\.requests\[1\]: Required value: exactly one of `exactly` or `firstAvailable` is required/);
    assert.match(err, /spec\.devices\.requests\[1\]: Duplicate value: "gpu"/);
    const noClass = await env.k.fails(['apply', '-f', '-'], { input: claim.replace('one-gpu', 'no-class').replace('        deviceClassName: gpu.example.com\n', '        count: 1\n') });
    assert.match(noClass, /spec\.devices\.requests\[0\]\.exactly\.deviceClassName: Required value/);
    const nowhere = await env.k.fails(['apply', '-f', '-'], { input: slice('node-c').replace('  nodeName: node-c\n', '') });
    assert.match(nowhere, /spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required/);
    const badAttr = await env.k.fails(['apply', '-f', '-'], { input: slice('node-c').replace('productName:', '"bad name":').replace('version: "550.54.15"', 'version: "v550"') });
    assert.match(badAttr, /spec\.devices\[0\]\.attributes: Invalid value: "bad name": a valid C identifier must start with alphabetic character or '_'/);
    assert.match(badAttr, /spec\.devices\[0\]\.attributes\[driverVersion\]\.version: Invalid value: "v550": must be a string compatible with semver\.org spec 2\.0\.0/);
    const admin = claim.replace('one-gpu', 'admin').replace('        deviceClassName: gpu.example.com\n', '        deviceClassName: gpu.example.com\n        adminAccess: true\n');
    const refused = await env.k.fails(['apply', '-f', '-'], { input: admin });
    assert.match(refused, /spec\.devices\.requests\[0\]\.exactly\.adminAccess: Forbidden: admin access to devices requires the `resource\.kubernetes\.io\/admin-access: true` label on the containing namespace/);
    await env.k.ok(['create', 'namespace', 'monitoring']);
    await env.k.ok(['label', 'namespace', 'monitoring', 'resource.kubernetes.io/admin-access=true']);
    assert.match(await env.k.ok(['apply', '-n', 'monitoring', '-f', '-'], { input: admin.replace('namespace: default', 'namespace: monitoring') }), /resourceclaim\.resource\.k8s\.io\/admin created/);
    const changed = await env.k.fails(['patch', 'resourceclaim', 'one-gpu', '--type=json', '-p', '[{"op":"replace","path":"/spec/devices/requests/0/name","value":"other"}]']);
    assert.match(changed, /spec: Invalid value: .*field is immutable/);
  });

  it('checks pods\' claims', async () => {
    const pod = (claims: string, containerClaims: string) => `apiVersion: v1
kind: Pod
metadata:
  name: with-claims
  namespace: default
spec:
  resourceClaims:
${claims}
  containers:
  - name: main
    image: busybox
    resources:
      claims:
${containerClaims}
`;
    const err = await env.k.fails(['apply', '-f', '-'], { input: pod('  - name: gpu\n    resourceClaimName: one-gpu\n    resourceClaimTemplateName: big-gpu\n  - name: gpu\n    resourceClaimName: one-gpu', '      - name: other') });
    assert.match(err, /spec\.resourceClaims\[0\]: Invalid value: .*: at most one of `resourceClaimName` or `resourceClaimTemplateName` may be specified/);
    assert.match(err, /spec\.resourceClaims\[1\]\.name: Duplicate value: "gpu"/);
    assert.match(err, /spec\.containers\[0\]\.resources\.claims\[0\]: Not found: "other": must be one of the names in pod\.spec\.resourceClaims: gpu/);
    await env.k.ok(['apply', '-f', '-'], { input: pod('  - name: gpu\n    resourceClaimTemplateName: big-gpu', '      - name: gpu') });
    assert.equal(await env.k.ok(['get', 'pod', 'with-claims', '-o', 'jsonpath={.spec.containers[0].resources.claims[0].name}']), 'gpu');
    // The resourceclaim controller's record of the claim made for the pod, through the status subresource.
    await env.k.ok(['patch', 'pod', 'with-claims', '--subresource=status', '--type=merge', '-p', '{"status":{"resourceClaimStatuses":[{"name":"gpu","resourceClaimName":"with-claims-gpu-x7k2p"}]}}']);
    assert.equal(await env.k.ok(['get', 'pod', 'with-claims', '-o', 'jsonpath={.status.resourceClaimStatuses[0].resourceClaimName}']), 'with-claims-gpu-x7k2p');
    const unknown = await env.k.fails(['patch', 'pod', 'with-claims', '--subresource=status', '--type=merge', '-p', '{"status":{"resourceClaimStatuses":[{"name":"cpu"}]}}']);
    assert.match(unknown, /status\.resourceClaimStatuses\[0\]\.name: Invalid value: "cpu": must match the name of an entry in `spec\.resourceClaims`/);
    await env.k.ok(['delete', 'pod', 'with-claims', '--wait=false']);
  });
});
