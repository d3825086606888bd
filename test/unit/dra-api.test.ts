// resource.k8s.io without a server: defaults, v1beta1 and v1 conversion both ways, validation in upstream's words
// (selectors compiled in the DRA CEL environment), the claim state column, and pods' claims.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject } from '../../src/machinery/types.js';
import { builtinDef, defaultKind, validateKind } from '../helpers/builtin-defs.js';
import { resourceClaimState } from '../../src/registry/tables/dra.js';
import { loadCel } from '../../src/cel/index.js';
import { compileDeviceSelector } from '../../src/cel/dra.js';
import { gpuDeviceClasses, gpuSliceSpecs, migLabel } from '../../src/kubelet/dra/gpu-slices.js';

const group = 'resource.k8s.io';
const claimKind = { group, kind: 'ResourceClaim' };
const sliceKind = { group, kind: 'ResourceSlice' };
const classKind = { group, kind: 'DeviceClass' };
const templateKind = { group, kind: 'ResourceClaimTemplate' };

const obj = (kind: string, spec: unknown, extra: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: `${group}/v1`, kind, metadata: { name: 'x', namespace: kind.startsWith('ResourceClaim') ? 'default' : undefined }, spec: structuredClone(spec), ...extra });
const messages = (kind: typeof claimKind, o: KObject, old?: KObject) => validateKind(kind, o, old).map((e) => `${e.field}: ${e.message}`);
const claimOf = (requests: unknown[], extra: Record<string, unknown> = {}) => {
  const c = obj('ResourceClaim', { devices: { requests, ...extra } });
  defaultKind(claimKind, c);
  return c;
};
const sliceOf = (spec: Record<string, unknown>) => obj('ResourceSlice', { driver: 'gpu.example.com', nodeName: 'n1', pool: { name: 'n1', resourceSliceCount: 1 }, ...spec });

before(async () => {
  await builtinDef(group, 'ResourceClaim').load?.();
});

describe('resource.k8s.io defaults and conversion', () => {
  it('defaults exact requests and alternatives to one device, and tolerations to Equal', () => {
    const c = claimOf([
      { name: 'a', exactly: { deviceClassName: 'c', tolerations: [{ key: 'k', value: 'v' }] } },
      { name: 'b', firstAvailable: [{ name: 's', deviceClassName: 'c', allocationMode: 'All' }] },
    ]);
    assert.deepEqual(c.spec, { devices: { requests: [
      { name: 'a', exactly: { deviceClassName: 'c', allocationMode: 'ExactCount', count: 1, tolerations: [{ key: 'k', value: 'v', operator: 'Equal' }] } },
      { name: 'b', firstAvailable: [{ name: 's', deviceClassName: 'c', allocationMode: 'All' }] },
    ] } });
    const t = obj('ResourceClaimTemplate', {});
    defaultKind(templateKind, t);
    assert.deepEqual(t.spec, { spec: { devices: {} } });
  });

  it('moves a v1beta1 request\'s fields under `exactly` and back, and a device\'s under `basic`', () => {
    const def = builtinDef(group, 'ResourceClaim');
    const beta = obj('ResourceClaim', { devices: { requests: [
      { name: 'a', deviceClassName: 'c', count: 2, selectors: [{ cel: { expression: 'true' } }] },
      { name: 'b' },
      { name: 'f', firstAvailable: [{ name: 's', deviceClassName: 'c' }] },
    ] } });
    const v1 = def.fromVersion!(beta, 'v1beta1');
    assert.deepEqual(v1.spec, { devices: { requests: [
      { name: 'a', exactly: { deviceClassName: 'c', count: 2, selectors: [{ cel: { expression: 'true' } }] } },
      { name: 'b', exactly: {} },
      { name: 'f', firstAvailable: [{ name: 's', deviceClassName: 'c' }] },
    ] } });
    assert.deepEqual(def.toVersion!(v1, 'v1beta1').spec, { devices: { requests: [
      { name: 'a', deviceClassName: 'c', count: 2, selectors: [{ cel: { expression: 'true' } }] }, { name: 'b' }, { name: 'f', firstAvailable: [{ name: 's', deviceClassName: 'c' }] },
    ] } });
    assert.equal(def.toVersion!(v1, 'v1beta2'), v1);
    const slices = builtinDef(group, 'ResourceSlice');
    const stored = sliceOf({ devices: [{ name: 'd', attributes: { a: { int: 1 } } }] });
    const served = slices.toVersion!(stored, 'v1beta1');
    assert.deepEqual((served.spec as { devices: unknown }).devices, [{ name: 'd', basic: { attributes: { a: { int: 1 } } } }]);
    assert.deepEqual(slices.fromVersion!(served, 'v1beta1'), stored);
    assert.deepEqual((stored.spec as { devices: unknown }).devices, [{ name: 'd', attributes: { a: { int: 1 } } }], 'the stored object is not changed');
  });
});

describe('resource.k8s.io validation', () => {
  it('accepts a claim with exact and prioritized requests, constraints and configuration', () => {
    const c = claimOf([
      { name: 'gpu', exactly: { deviceClassName: 'gpu.example.com', selectors: [{ cel: { expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("40Gi")) >= 0' } }] } },
      { name: 'nic', firstAvailable: [{ name: 'fast', deviceClassName: 'nic' }, { name: 'slow', deviceClassName: 'nic', count: 2 }] },
    ], { constraints: [{ requests: ['gpu', 'nic/fast'], matchAttribute: 'example.com/pcieRoot' }], config: [{ requests: ['gpu'], opaque: { driver: 'gpu.example.com', parameters: { a: 1 } } }] });
    assert.deepEqual(messages(claimKind, c), []);
  });

  it('reports claim errors in upstream words', () => {
    const c = claimOf([
      { name: 'Bad_Name', exactly: { deviceClassName: '', selectors: [{ cel: { expression: 'device.driver' } }, {}] } },
      { name: 'two', exactly: { deviceClassName: 'c' }, firstAvailable: [{ name: 's', deviceClassName: 'c' }] },
      { name: 'cnt', exactly: { deviceClassName: 'c', allocationMode: 'Some' } },
    ], { constraints: [{ requests: ['nope', 'a/b/c'] }] });
    const got = messages(claimKind, c);
    assert.ok(got.some((m) => m.startsWith('spec.devices.requests[0].name: Invalid value: "Bad_Name": a lowercase RFC 1123 label')), got.join('\n'));
    for (const want of [
      'spec.devices.requests[0].exactly.deviceClassName: Required value',
      'spec.devices.requests[0].exactly.selectors[0].cel.expression: Invalid value: "device.driver": must evaluate to bool or the unknown type, not string',
      'spec.devices.requests[0].exactly.selectors[1].cel: Required value',
      'spec.devices.requests[1]: Invalid value: null: exactly one of `exactly` or `firstAvailable` is required, but multiple fields are set',
      'spec.devices.requests[2].exactly.allocationMode: Unsupported value: "Some": supported values: "All", "ExactCount"',
      'spec.devices.constraints[0].requests[0]: Invalid value: "nope": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\'',
      'spec.devices.constraints[0].requests[1]: Invalid value: "a/b/c": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\'',
      'spec.devices.constraints[0].matchAttribute: Required value',
    ]) assert.ok(got.includes(want), `${want}\n--- got:\n${got.join('\n')}`);
  });

  it('keeps a claim\'s spec, and checks what its status says', () => {
    const old = claimOf([{ name: 'gpu', exactly: { deviceClassName: 'c' } }]);
    const changed = claimOf([{ name: 'gpu', exactly: { deviceClassName: 'd' } }]);
    assert.match(messages(claimKind, changed, old)[0], /^spec: Invalid value: .*: field is immutable$/);
    const reserved = { ...old, status: { reservedFor: [{ resource: 'pods', name: 'p', uid: 'u1' }] } };
    assert.deepEqual(messages(claimKind, reserved, old), ['status.reservedFor: Forbidden: may not be specified when `allocated` is not set']);
    const allocation = { devices: { results: [{ request: 'gpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }] } };
    const allocated = { ...old, status: { allocation, reservedFor: [{ resource: 'pods', name: 'p', uid: 'u1' }] } };
    assert.deepEqual(messages(claimKind, allocated, old), []);
    assert.equal(resourceClaimState(allocated), 'allocated,reserved');
    assert.equal(resourceClaimState(old), 'pending');
    const moved = { ...old, status: { allocation: { devices: { results: [{ ...allocation.devices.results[0], device: 'gpu-1' }] } } } };
    assert.match(messages(claimKind, moved, allocated)[0], /^status\.allocation: Invalid value: .*: field is immutable$/);
    const template = obj('ResourceClaimTemplate', { spec: { devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'c' } }] } } });
    defaultKind(templateKind, template);
    assert.deepEqual(messages(templateKind, template), []);
    const otherTemplate = structuredClone(template);
    (otherTemplate.spec as { metadata?: unknown }).metadata = { labels: { a: 'b' } };
    assert.match(messages(templateKind, otherTemplate, template)[0], /^spec: Invalid value: .*: field is immutable$/);
    const wrong = { ...old, status: { allocation: { devices: { results: [{ request: 'cpu', driver: 'gpu.example.com', pool: 'n1', device: 'gpu-0' }] } } } };
    assert.deepEqual(messages(claimKind, wrong, old), ['status.allocation.devices.results[0].request: Invalid value: "cpu": must be the name of a request in the claim or the name of a request and a subrequest separated by \'/\'']);
  });

  it('reports slice errors in upstream words', () => {
    const both = sliceOf({ allNodes: true, devices: [{ name: 'd', attributes: { 'a/b/c': { int: 1 }, v: { version: '1.2' }, s: { string: 'x'.repeat(65) }, two: { int: 1, bool: true } }, capacity: { m: { value: '1', requestPolicy: {} } } }] });
    const got = messages(sliceKind, both);
    for (const want of [
      'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set',
      'spec.devices[0].attributes: Invalid value: "a/b/c": must not contain more than one slash',
      'spec.devices[0].attributes[v].version: Invalid value: "1.2": must be a string compatible with semver.org spec 2.0.0',
      'spec.devices[0].attributes[s].string: Too long: may not be more than 64 bytes',
      'spec.devices[0].attributes[two]: Invalid value: {"int":1,"bool":true}: exactly one value must be specified',
      'spec.devices[0].capacity[m].requestPolicy: Forbidden: allowMultipleAllocations must be true',
    ]) assert.ok(got.includes(want), `${want}\n--- got:\n${got.join('\n')}`);
    const counters = sliceOf({ sharedCounters: [{ name: 'gpu-0', counters: { memory: { value: '80Gi' } } }, { name: 'gpu-0', counters: {} }] });
    assert.deepEqual(messages(sliceKind, counters), ['spec.sharedCounters[1].counters: Required value', 'spec.sharedCounters[1]: Duplicate value: "gpu-0"']);
    const old = sliceOf({});
    const moved = sliceOf({ nodeName: 'n2', driver: 'other.example.com' });
    assert.deepEqual(messages(sliceKind, moved, old), ['spec.driver: Invalid value: "other.example.com": field is immutable', 'spec.nodeName: Invalid value: "n2": field is immutable']);
  });

  it('reports class errors, and compiles a changed class\'s selectors only', () => {
    const bad = obj('DeviceClass', { selectors: [{ cel: { expression: 'device.driver ==' } }], extendedResourceName: 'cpu' });
    const got = messages(classKind, bad);
    assert.match(got[0], /^spec\.selectors\[0\]\.cel\.expression: Invalid value: "device\.driver ==": compilation failed: ERROR: <input>:1:/);
    assert.equal(got[1], 'spec.extendedResourceName: Invalid value: "cpu": must be a valid extended resource name');
    const stored = obj('DeviceClass', { selectors: [{ cel: { expression: 'device.driver ==' } }] });
    assert.deepEqual(messages(classKind, structuredClone(stored), stored), []);
    assert.deepEqual(messages(classKind, obj('DeviceClass', { extendedResourceName: 'example.com/gpu' })), []);
  });
});

describe('the DRA CEL environment', () => {
  it('has cel.bind, counts the cost of what a binding holds, and keeps cel.bind out of other environments', async () => {
    const cel = await loadCel();
    const ok = compileDeviceSelector(cel, 'cel.bind(gpu, device.attributes["gpu.example.com"], gpu.model == "H100" && gpu.memory > 40)');
    assert.ok(ok.ok);
    const device = cel.toCelValue({ driver: 'gpu.example.com', attributes: { 'gpu.example.com': { model: 'H100', memory: 80 } }, capacity: {} }, undefined);
    const run = ok.program.eval({ device });
    assert.ok(run.ok && run.value === true, JSON.stringify(run));
    let nested = 'true';
    for (let i = 5; i > 0; i--) nested = `g.all(k${i}, ${nested})`;
    assert.deepEqual(compileDeviceSelector(cel, `cel.bind(g, device.attributes["a"], ${nested})`), { ok: false, kind: 'too-complex', detail: 'too complex, exceeds cost limit' });
    const badName = compileDeviceSelector(cel, 'cel.bind(1, 2, true)');
    assert.ok(!badName.ok && badName.detail.startsWith('compilation failed: ERROR: <input>:1:10: cel.bind() variable names must be simple identifiers'));
    const elsewhere = cel.compile('cel.bind(x, 1, x == 1)', new Map(), 'no-bindings');
    assert.ok(!elsewhere.ok && /undeclared reference to 'cel'/.test(elsewhere.error));
  });
});

describe('a device as selectors see it', () => {
  it('groups attributes and capacities by domain, with versions, quantities and empty domains as upstream', async () => {
    const cel = await loadCel();
    const { deviceValue, deviceMatches } = await import('../../src/cel/dra-device.js');
    const device = deviceValue('gpu.example.com', {
      attributes: { productName: { string: 'H100' }, driverVersion: { version: '550.54.15' }, index: { int: 3 }, 'numa.example.com/node': { int: 1 }, mig: { bool: false } },
      capacity: { memory: { value: '80Gi' } },
    });
    assert.notEqual(typeof device, 'string');
    const run = (expression: string) => {
      const c = compileDeviceSelector(cel, expression);
      assert.ok(c.ok, expression);
      return deviceMatches(c.program, device as never);
    };
    assert.deepEqual(run('device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].productName == "H100" && !device.attributes["gpu.example.com"].mig'), { matches: true });
    assert.deepEqual(run('device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0'), { matches: true });
    assert.deepEqual(run('device.capacity["gpu.example.com"].memory.isGreaterThan(quantity("80Gi"))'), { matches: false });
    assert.deepEqual(run('device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("500.0.0")) && device.attributes["numa.example.com"].node == 1'), { matches: true });
    assert.deepEqual(run('"x" in device.attributes["other.example.com"] || device.attributes["gpu.example.com"].index > 2'), { matches: true });
    // A missing attribute in a domain the device lacks is a missing key (cel-go: "no such key"), not a missing domain.
    assert.match(JSON.stringify(run('device.attributes["other.example.com"].x == 1')), /"error":"(no such key|field not found): x"/);
    assert.match(JSON.stringify(run('device.attributes["gpu.example.com"].index')), /could not be converted to bool/);
    assert.equal(deviceValue('d', { attributes: { v: { version: 'v1' } } }), 'attribute v: parse semantic version: v1');
  });
});

describe('the simulated GPU driver\'s objects', () => {
  it('pass the API\'s validation: slices with and without MIG, and the classes', () => {
    const gpuNode = (mig: boolean) => ({
      metadata: { name: 'bonsai-gpu-1', uid: 'u', labels: { 'nvidia.com/gpu.product': 'NVIDIA-H100-80GB-HBM3', ...(mig ? { [migLabel]: 'true' } : {}) } },
      status: { capacity: { 'nvidia.com/gpu': '8' } },
    });
    const specs = [...gpuSliceSpecs(gpuNode(false)), ...gpuSliceSpecs(gpuNode(true))];
    assert.ok(specs.some((s) => s.sharedCounters) && specs.some((s) => s.devices?.some((d) => d.consumesCounters)));
    for (const [i, spec] of specs.entries()) {
      const slice = obj('ResourceSlice', spec);
      slice.metadata.name = `slice-${i}`;
      defaultKind(sliceKind, slice);
      assert.deepEqual(messages(sliceKind, slice), [], `slice ${i}`);
    }
    for (const c of gpuDeviceClasses()) {
      const cls = structuredClone(c) as unknown as KObject;
      defaultKind(classKind, cls);
      assert.deepEqual(messages(classKind, cls), [], c.metadata.name);
    }
  });
});

describe('pods\' resource claims', () => {
  const podKind = { group: '', kind: 'Pod' };
  const pod = (claims: unknown[], containerClaims: unknown[]): KObject => ({
    apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' },
    spec: { restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', resourceClaims: claims, containers: [{ name: 'c', image: 'i', terminationMessagePolicy: 'File', imagePullPolicy: 'Always', resources: { claims: containerClaims } }] },
  });
  it('checks names, the one-of and the containers\' references', () => {
    const got = messages(podKind, pod([{ name: 'a' }, { name: 'a', resourceClaimName: 'x' }], [{ name: 'b' }, { name: 'a', request: 'r' }, { name: 'a', request: 'r' }]));
    assert.deepEqual(got.filter((m) => /claims/i.test(m)), [
      'spec.resourceClaims[0]: Invalid value: {"name":"a"}: must specify one of: `resourceClaimName`, `resourceClaimTemplateName`',
      'spec.resourceClaims[1].name: Duplicate value: "a"',
      'spec.containers[0].resources.claims[0]: Not found: "b": must be one of the names in pod.spec.resourceClaims: a',
      'spec.containers[0].resources.claims[2]: Duplicate value: "a/r"',
    ]);
    const status = { ...pod([{ name: 'a', resourceClaimTemplateName: 't' }], []), status: { resourceClaimStatuses: [{ name: 'b', resourceClaimName: 'p-a-x' }] } };
    assert.deepEqual(messages(podKind, status, status).filter((m) => /claim/i.test(m)), ['status.resourceClaimStatuses[0].name: Invalid value: "b": must match the name of an entry in `spec.resourceClaims`']);
  });
});
