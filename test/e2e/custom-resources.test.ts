// CustomResourceDefinitions through kubectl: the CRD files real projects ship apply and become Established, and their
// objects behave as upstream's do (printer columns, short names, watch, patches, status, server-side apply, CEL rules,
// pruning, defaults, scale, several versions), until the CRD is deleted; CRDs and objects survive a restart.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot, startServer, type ServerHandle } from '../helpers/server.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually, Kubectl } from '../helpers/kubectl.js';

type Json = Record<string, any>;

const fixtures = join(projectRoot, 'test', 'fixtures');
const crdFiles = readdirSync(join(fixtures, 'crds')).filter((f) => f.endsWith('.yaml'));
const objectFile = (name: string) => join(fixtures, 'crd-objects', name);
const crdFile = (name: string) => join(fixtures, 'crds', name);

describe('custom resources through kubectl', () => {
  // Without add-ons: these CRDs are applied by hand here, with no controller reconciling their objects.
  const env = useKubectlServer({ args: ['--addons', ''] });
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-crds-'));
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;

  before(async () => {
    for (const f of crdFiles) cpSync(crdFile(f), join(dir, f));
    const out = await env.k.ok(['apply', '--server-side', '-f', dir]);
    assert.equal(out.trim().split('\n').filter((l) => l.endsWith(' serverside-applied')).length, 14, out);
    await env.k.ok(['wait', '--for', 'condition=established', 'crd', '--all', '--timeout=30s']);
  });

  it('lists the CRDs projects ship, Established with their names accepted', async () => {
    const lines = (await env.k.ok(['get', 'crd'])).trim().split('\n');
    assert.match(lines[0], /^NAME\s+CREATED AT$/);
    for (const name of ['jobsets.jobset.x-k8s.io', 'leaderworkersets.leaderworkerset.x-k8s.io', 'nodepools.karpenter.sh', 'scaledobjects.keda.sh',
      'verticalpodautoscalers.autoscaling.k8s.io', 'verticalpodautoscalercheckpoints.autoscaling.k8s.io', 'sandboxes.agents.x-k8s.io']) {
      assert.ok(lines.some((l) => l.startsWith(`${name} `)), `${name} missing from:\n${lines.join('\n')}`);
    }
    const crd = await getJson('crd', 'leaderworkersets.leaderworkerset.x-k8s.io');
    const conds = Object.fromEntries(crd.status.conditions.map((c: Json) => [c.type, c]));
    assert.equal(conds.NamesAccepted.status, 'True');
    assert.equal(conds.NamesAccepted.reason, 'NoConflicts');
    assert.equal(conds.Established.status, 'True');
    assert.equal(conds.Established.reason, 'InitialNamesAccepted');
    assert.deepEqual(crd.status.acceptedNames, { kind: 'LeaderWorkerSet', listKind: 'LeaderWorkerSetList', plural: 'leaderworkersets', shortNames: ['lws'], singular: 'leaderworkerset' });
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    const resources = await env.k.ok(['api-resources', '--api-group', 'leaderworkerset.x-k8s.io']);
    assert.match(resources, /leaderworkersets\s+lws\s+leaderworkerset\.x-k8s\.io\/v1\s+true\s+LeaderWorkerSet/);
  });

  it('explains a CRD field from the published schema', async () => {
    const out = await env.k.ok(['explain', 'jobset.spec.failurePolicy.rules']);
    assert.match(out, /GROUP:\s+jobset\.x-k8s\.io/);
    assert.match(out, /KIND:\s+JobSet/);
    assert.match(out, /FIELD: rules/);
    assert.match(out, /DESCRIPTION:/);
  });

  for (const c of [
    { kind: 'jobset', file: 'jobset.yaml', name: 'train', res: 'jobset.jobset.x-k8s.io', header: /^NAME\s+TERMINALSTATE\s+RESTARTS\s+COMPLETED\s+SUSPENDED\s+AGE$/, statusPatch: { restarts: 2, terminalState: 'Completed' } },
    { kind: 'lws', file: 'lws.yaml', name: 'serve', res: 'leaderworkerset.leaderworkerset.x-k8s.io', header: /^NAME\s+READY\s+DESIRED\s+UP-TO-DATE\s+AGE$/, statusPatch: { readyReplicas: 1, replicas: 1 } },
  ]) {
    it(`${c.kind}: create, printer columns, watch, describe, patches, status, server-side apply, label, delete`, async () => {
      assert.equal((await env.k.ok(['create', '-f', objectFile(c.file)])).trim(), `${c.res}/${c.name} created`);
      const table = (await env.k.ok(['get', c.kind])).trim().split('\n');
      assert.match(table[0], c.header);
      assert.match(table[1], new RegExp(`^${c.name}\\s`));
      assert.match((await env.k.ok(['get', c.kind, '-o', 'wide'])).split('\n')[0], c.header);
      const watch = env.k.start(['get', c.kind, '-w', '--output-watch-events']);
      try {
        await eventually(() => watch.out().includes('ADDED'), 10_000, 'the watch lists the object');
        const patched = await env.k.ok(['patch', c.kind, c.name, '--type', 'merge', '-p', '{"metadata":{"annotations":{"note":"hi"}}}']);
        assert.equal(patched.trim(), `${c.res}/${c.name} patched`);
        await eventually(() => watch.out().includes('MODIFIED'), 10_000, 'the watch sees the patch');
      } finally {
        watch.stop();
      }
      const described = await env.k.ok(['describe', c.kind, c.name]);
      assert.match(described, new RegExp(`^Name:\\s+${c.name}$`, 'm'));
      assert.match(described, /^Annotations:\s+note: hi$/m);
      assert.match(await env.k.ok(['patch', c.kind, c.name, '--subresource', 'status', '--type', 'merge', '-p', JSON.stringify({ status: c.statusPatch })]), /patched/);
      const withStatus = await getJson(c.kind, c.name);
      for (const [k, v] of Object.entries(c.statusPatch)) assert.equal(withStatus.status[k], v);
      assert.equal(withStatus.metadata.generation, 1, 'status and metadata writes leave the generation alone');
      // Server-side apply by two managers: the second one's change to a field the first owns conflicts.
      const applyFile = join(dir, `${c.kind}-apply.yaml`);
      writeFileSync(applyFile, readFileSync(objectFile(c.file), 'utf8').replace('metadata:\n', 'metadata:\n  labels:\n    owner: first\n'));
      assert.match(await env.k.ok(['apply', '--server-side', '--field-manager', 'first', '-f', applyFile]), /serverside-applied/);
      writeFileSync(applyFile, readFileSync(objectFile(c.file), 'utf8').replace('metadata:\n', 'metadata:\n  labels:\n    owner: second\n'));
      const conflict = await env.k.fails(['apply', '--server-side', '--field-manager', 'second', '-f', applyFile]);
      assert.match(conflict, /Apply failed with 1 conflict: conflict with "first": \.metadata\.labels\.owner/);
      assert.match(await env.k.ok(['apply', '--server-side', '--field-manager', 'second', '--force-conflicts', '-f', applyFile]), /serverside-applied/);
      const applied = JSON.parse(await env.k.ok(['get', c.kind, c.name, '-o', 'json', '--show-managed-fields'])) as Json;
      assert.equal(applied.metadata.labels.owner, 'second');
      assert.ok(applied.metadata.managedFields.some((m: Json) => m.manager === 'second' && m.operation === 'Apply'));
      assert.equal((await env.k.ok(['label', c.kind, c.name, 'team=ml'])).trim(), `${c.res}/${c.name} labeled`);
      assert.match(await env.k.ok(['get', c.kind, '-l', 'team=ml']), new RegExp(`^${c.name}\\s`, 'm'));
      assert.equal((await env.k.ok(['delete', c.kind, c.name])).trim(), `${c.res} "${c.name}" deleted`);
      assert.match(await env.k.fails(['get', c.kind, c.name]), new RegExp(`NotFound.*"${c.name}" not found`));
    });
  }

  it('fills in schema defaults, drops unknown fields with a warning (refused with --validate=strict), and enforces CEL rules', async () => {
    const jobset = readFileSync(objectFile('jobset.yaml'), 'utf8').replace('name: train', 'name: rules').replace('  suspend: true\n', '  suspend: true\n  bogus: 1\n');
    const created = await env.k.run(['create', '--validate=warn', '-f', '-'], { input: jobset });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /Warning: unknown field "spec\.bogus"/);
    const obj = await getJson('jobset', 'rules');
    assert.equal(obj.spec.bogus, undefined);
    assert.equal(obj.spec.replicatedJobs[0].replicas, 1, 'schema default');
    assert.equal(obj.spec.replicatedJobs[0].groupName, 'default', 'schema default');
    const strict = await env.k.run(['create', '--validate=strict', '-f', '-'], { input: jobset.replace('name: rules', 'name: strict') });
    assert.notEqual(strict.code, 0);
    assert.match(strict.stderr, /strict decoding error: unknown field "spec\.bogus"/);
    // A transition rule: spec.network is immutable.
    const immutable = await env.k.fails(['patch', 'jobset', 'rules', '--type', 'merge', '-p', '{"spec":{"network":{"enableDNSHostnames":false}}}']);
    assert.match(immutable, /The JobSet "rules" is invalid: spec\.network: Invalid value: .*Value is immutable/);
    // A rule on spec: startupPolicy InOrder and dependsOn exclude each other.
    const exclusive = readFileSync(objectFile('jobset.yaml'), 'utf8').replace('name: train', 'name: exclusive')
      .replace('  suspend: true\n', '  suspend: true\n  startupPolicy:\n    startupPolicyOrder: InOrder\n')
      .replace('  - name: workers\n', '  - name: workers\n    dependsOn:\n    - name: workers\n      status: Ready\n');
    const refused = await env.k.run(['create', '-f', '-'], { input: exclusive });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /StartupPolicy and DependsOn APIs are mutually exclusive/);
  });

  it('scales a custom resource through its scale subresource, and an autoscaling/v2 HPA reads it', async () => {
    await env.k.ok(['create', '-f', objectFile('lws.yaml')]);
    assert.equal((await env.k.ok(['scale', 'lws', 'serve', '--replicas', '3'])).trim(), 'leaderworkerset.leaderworkerset.x-k8s.io/serve scaled');
    const lws = await getJson('lws', 'serve');
    assert.equal(lws.spec.replicas, 3);
    assert.equal(lws.metadata.generation, 2);
    const scale = JSON.parse(await env.k.ok(['get', '--raw', '/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets/serve/scale'])) as Json;
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 3);
    await env.k.ok(['create', '-f', '-'], {
      input: JSON.stringify({
        apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'serve' },
        spec: { scaleTargetRef: { apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet', name: 'serve' }, minReplicas: 1, maxReplicas: 5,
          metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } }] },
      }),
    });
    await eventually(async () => {
      const hpa = await getJson('hpa', 'serve');
      const able = (hpa.status?.conditions ?? []).find((c: Json) => c.type === 'AbleToScale');
      return hpa.status?.currentReplicas === 3 && able?.status === 'True' && able.reason === 'SucceededGetScale';
    }, 20_000, 'the HPA reads the custom resource\'s scale');
  });

  it('serves several versions (conversion None), records the storage version, prints wide columns and joins category "all"', async () => {
    await env.k.ok(['apply', '-f', objectFile('two-versions.yaml')]);
    await env.k.ok(['wait', '--for', 'condition=established', 'crd/widgets.example.com', '--timeout=20s']);
    await env.k.ok(['create', '-f', '-'], { input: 'apiVersion: example.com/v1beta1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  size: 3\n' });
    const v1 = await getJson('widgets.v1.example.com', 'w1');
    assert.equal(v1.apiVersion, 'example.com/v1');
    const beta = await getJson('widgets.v1beta1.example.com', 'w1');
    assert.equal(beta.apiVersion, 'example.com/v1beta1');
    assert.equal(beta.spec.size, 3);
    assert.deepEqual((await getJson('crd', 'widgets.example.com')).status.storedVersions, ['v1']);
    const wide = (await env.k.ok(['get', 'wg', '-o', 'wide'])).trim().split('\n');
    // Declared columns replace the default Age column.
    assert.match(wide[0], /^NAME\s+SIZE\s+COLOR$/);
    assert.match(wide[1], /^w1\s+3\s+blue$/);
    assert.match((await env.k.ok(['get', 'wg'])).split('\n')[0], /^NAME\s+SIZE$/);
    assert.match(await env.k.ok(['get', 'all']), /widget\.example\.com\/w1/);
    assert.match(await env.k.ok(['get', 'wg', '--field-selector', 'metadata.name=w1']), /^w1\s/m);
    // A default added to the schema later is served for objects stored before it, as upstream defaults on read.
    const crd = readFileSync(objectFile('two-versions.yaml'), 'utf8').replace('              color: {type: string, default: blue}', '              color: {type: string, default: blue}\n              shape: {type: string, default: round}');
    await env.k.ok(['apply', '-f', '-'], { input: crd });
    const w3 = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w3\nspec:\n  size: 1\n';
    // The changed schema is served a moment after the CRD is written, as upstream's handler follows CRD changes.
    await eventually(async () => (await env.k.ok(['create', '--dry-run=server', '-o', 'jsonpath={.spec.shape}', '-f', '-'], { input: w3 })).trim() === 'round', 10_000, 'the new schema');
    await env.k.ok(['create', '-f', '-'], { input: w3 });
    assert.equal((await env.k.ok(['get', 'wg', 'w3', '-o', 'jsonpath={.spec.shape}'])).trim(), 'round');
    await eventually(async () => (await env.k.ok(['get', 'wg', 'w1', '-o', 'jsonpath={.spec.shape}'])).trim() === 'round', 10_000, 'the new default on the old object');
  });

  it('deleting a CRD deletes its objects, then its discovery entries', async () => {
    await env.k.ok(['create', '-f', '-'], { input: 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w2\n' });
    assert.match(await env.k.ok(['delete', 'crd', 'widgets.example.com']), /customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted/);
    await eventually(async () => (await env.k.run(['get', 'crd', 'widgets.example.com'])).code !== 0, 20_000, 'the CRD goes');
    const raw = await env.k.run(['get', '--raw', '/apis/example.com/v1']);
    assert.notEqual(raw.code, 0);
    assert.doesNotMatch(await env.k.ok(['api-resources']), /widgets/);
    const groups = JSON.parse(await env.k.ok(['get', '--raw', '/apis'])) as Json;
    assert.ok(!groups.groups.some((g: Json) => g.name === 'example.com'));
  });
});

describe('custom resources across a restart', () => {
  let server: ServerHandle;
  after(async () => {
    await server?.stop();
    server?.cleanup();
  });

  it('keeps CRDs and custom objects', async () => {
    server = await startServer({ args: ['--addons', ''] });
    let k = new Kubectl(server.kubeconfig);
    await k.ok(['apply', '--server-side', '-f', crdFile('leaderworkerset.x-k8s.io_leaderworkersets.yaml')]);
    await k.ok(['wait', '--for', 'condition=established', 'crd/leaderworkersets.leaderworkerset.x-k8s.io', '--timeout=20s']);
    await k.ok(['create', '-f', objectFile('lws.yaml')]);
    await server.stop();
    server = await startServer({ dataDir: server.dataDir, args: ['--addons', ''] });
    k = new Kubectl(server.kubeconfig);
    assert.match(await k.ok(['get', 'lws']), /^serve\s/m);
    await k.ok(['scale', 'lws', 'serve', '--replicas', '2']);
    assert.equal((await k.ok(['get', 'lws', 'serve', '-o', 'jsonpath={.spec.replicas}'])).trim(), '2');
  });
});
