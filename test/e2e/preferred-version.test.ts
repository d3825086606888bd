// A group's preferred version is its highest by Kubernetes' version priority (v1 > v1beta2 > v1beta1 > v1alpha1),
// whatever order its versions and kinds were declared in: discovery (legacy and aggregated), `kubectl get -o yaml`
// and `kubectl explain` use it. Discovery's storageVersionHash is upstream's digest of the storage version.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { waitDeadline } from '../helpers/wait.js';

type Json = Record<string, any>;

const AGGREGATED = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const open = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
const typed = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', description: 'What the gadget is.', properties: { size: { type: 'integer' } } } } } };

// The group's first kind serves v1beta1 only, the second lists v1beta1 before v1 (its storage version).
const manifests = [
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'olds.prio.example.com' },
    spec: { group: 'prio.example.com', scope: 'Namespaced', names: { kind: 'Old', plural: 'olds', singular: 'old' },
      versions: [{ name: 'v1beta1', served: true, storage: true, schema: open }] } },
  { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'gadgets.prio.example.com' },
    spec: { group: 'prio.example.com', scope: 'Namespaced', names: { kind: 'Gadget', plural: 'gadgets', singular: 'gadget' },
      versions: [{ name: 'v1beta1', served: true, storage: false, schema: open }, { name: 'v1', served: true, storage: true, schema: typed }] } },
];

describe('preferred versions and storage version hashes', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const get = async (path: string, accept = 'application/json'): Promise<Json> => {
    const r = await fetch(env.server.url + path, { headers: { accept } });
    assert.equal(r.status, 200, path);
    return (await r.json()) as Json;
  };

  it('prefers v1 over v1beta1 in discovery, get and explain', async () => {
    await env.k.ok(['apply', '-f', '-'], { input: manifests.map((m) => stringify(m)).join('---\n') });
    await env.k.ok(['wait', '--for=condition=Established', 'crd/olds.prio.example.com', 'crd/gadgets.prio.example.com', `--timeout=${waitDeadline(30_000) / 1000}s`]);
    const group = await get('/apis/prio.example.com');
    assert.deepEqual(group.versions.map((v: Json) => v.version), ['v1', 'v1beta1']);
    assert.deepEqual(group.preferredVersion, { groupVersion: 'prio.example.com/v1', version: 'v1' });
    const listed = (await get('/apis')).groups.find((g: Json) => g.name === 'prio.example.com');
    assert.equal(listed.preferredVersion.version, 'v1');
    const aggregated = (await get('/apis', AGGREGATED)).items.find((g: Json) => g.metadata.name === 'prio.example.com');
    assert.deepEqual(aggregated.versions.map((v: Json) => v.version), ['v1', 'v1beta1']);

    await env.k.ok(['apply', '-f', '-'], { input: 'apiVersion: prio.example.com/v1beta1\nkind: Gadget\nmetadata:\n  name: g1\n  namespace: default\nspec:\n  size: 2\n' });
    assert.match(await env.k.ok(['get', 'gadget', 'g1', '-o', 'yaml']), /^apiVersion: prio\.example\.com\/v1\n/);
    const explained = await env.k.ok(['explain', 'gadget.spec']);
    assert.match(explained, /VERSION:\s+v1\n/);
    assert.match(explained, /What the gadget is\./);
  });

  it('hashes the storage version as upstream does', async () => {
    const hash = async (path: string, name: string) => (await get(path)).resources.find((r: Json) => r.name === name).storageVersionHash as string;
    assert.equal(await hash('/api/v1', 'pods'), 'xPOwRZ+Yhw8=');
    assert.equal(await hash('/apis/apps/v1', 'deployments'), '8aSe+NMegvE=');
    // Stored as core v1 Events, and as autoscaling/v2 whichever version serves them.
    assert.equal(await hash('/apis/events.k8s.io/v1', 'events'), 'r2yiGXH7wu8=');
    assert.equal(await hash('/apis/autoscaling/v1', 'horizontalpodautoscalers'), 'qwQve8ut294=');
    assert.equal(await hash('/apis/autoscaling/v2', 'horizontalpodautoscalers'), 'qwQve8ut294=');
  });
});
