// metadata.managedFields for every write, through the real kubectl: each command's Update entry, the conflicts
// server-side apply then reports, and kubectl's own move from client-side to server-side apply.
import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually, Kubectl, kubectlBinary } from '../helpers/kubectl.js';

type Json = Record<string, any>;

/** What kubectl prints after the server's conflict message. */
const advice = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the \`--force-conflicts\` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the other manager(s)
  stop managing the field (remove it from their configuration).
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts
`;

const deployment = (name: string, replicas: number, image = 'nginx') => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: ${replicas}
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
      - name: app
        image: ${image}
`;

describe('managedFields of every write', () => {
  const env = useKubectlServer();
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-mf-'));
  // Named `kubectl` as on a user's machine: without --field-manager, kubectl's User-Agent names the manager.
  const bin = join(dir, 'kubectl');
  symlinkSync(kubectlBinary, bin);
  let k: Kubectl;
  before(() => {
    k = new Kubectl(env.server.kubeconfig, bin);
  });
  const managed = async (...args: string[]) => (JSON.parse(await k.ok(['get', ...args, '-o', 'json', '--show-managed-fields'])) as Json).metadata.managedFields as Json[];
  const file = (name: string, text: string) => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it('records kubectl create as an Update by kubectl-create, shown only with --show-managed-fields', async () => {
    await k.ok(['create', 'deployment', 'web', '--image=nginx']);
    const entries = await managed('deploy', 'web');
    const create = entries.find((e) => e.manager === 'kubectl-create')!;
    assert.ok(create, JSON.stringify(entries));
    assert.equal(create.operation, 'Update');
    assert.equal(create.apiVersion, 'apps/v1');
    assert.equal(create.fieldsType, 'FieldsV1');
    assert.match(create.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(create.subresource, undefined);
    const spec = create.fieldsV1['f:spec'];
    assert.deepEqual(spec['f:replicas'], {});
    assert.deepEqual(spec['f:strategy']['f:rollingUpdate'], { '.': {}, 'f:maxSurge': {}, 'f:maxUnavailable': {} });
    assert.deepEqual(Object.keys(spec['f:template']['f:spec']['f:containers']), ['k:{"name":"nginx"}']);
    assert.equal(create.fieldsV1['f:status'], undefined);
    // The controllers' writes: the status by kube-controller-manager through the status subresource.
    await eventually(async () => (await managed('deploy', 'web')).some((e) => e.manager === 'kube-controller-manager' && e.subresource === 'status' && e.fieldsV1['f:status']), 30_000, 'the deployment controller\'s status entry');
    const rs = JSON.parse(await k.ok(['get', 'rs', '-l', 'app=web', '-o', 'json', '--show-managed-fields'])) as Json;
    assert.ok(rs.items[0].metadata.managedFields.some((e: Json) => e.manager === 'kube-controller-manager' && !e.subresource && e.fieldsV1['f:spec']), JSON.stringify(rs.items[0].metadata.managedFields));
    assert.doesNotMatch(await k.ok(['get', 'deploy', 'web', '-o', 'yaml']), /managedFields/);
  });

  it('refuses a server-side apply of replicas after kubectl scale, as upstream words it', async () => {
    await k.ok(['create', 'deployment', 'scaled', '--image=nginx']);
    await k.ok(['scale', 'deploy', 'scaled', '--replicas=4']);
    const entries = await managed('deploy', 'scaled');
    const scale = entries.find((e) => e.subresource === 'scale')!;
    assert.deepEqual(scale, { manager: 'kubectl', operation: 'Update', apiVersion: 'apps/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:spec': { 'f:replicas': {} } }, subresource: 'scale' });
    assert.equal(entries.find((e) => e.manager === 'kubectl-create')!.fieldsV1['f:spec']['f:replicas'], undefined);
    const r = await k.run(['apply', '--server-side', '-f', file('scaled.yaml', deployment('scaled', 3).replace(/app: scaled/g, 'app: scaled'))]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `error: Apply failed with 1 conflict: conflict with "kubectl" with subresource "scale" using apps/v1: .spec.replicas\n${advice}`);
    assert.equal((JSON.parse(await k.ok(['get', 'deploy', 'scaled', '-o', 'json'])) as Json).spec.replicas, 4);
    await k.ok(['apply', '--server-side', '--force-conflicts', '-f', join(dir, 'scaled.yaml')]);
    const after = await managed('deploy', 'scaled');
    assert.ok(!after.some((e) => e.subresource === 'scale'), 'the forced apply took .spec.replicas');
  });

  it('refuses a server-side apply changing what kubectl create -f set', async () => {
    await k.ok(['create', '-f', file('cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: fast\n')]);
    const r = await k.run(['apply', '--server-side', '-f', file('cm2.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  mode: slow\n')]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr, `error: Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.mode\n${advice}`);
    // The same value is shared, not a conflict.
    assert.match(await k.ok(['apply', '--server-side', '-f', join(dir, 'cm.yaml')]), /configmap\/settings serverside-applied/);
  });

  it('moves a client-side applied object to server-side apply without conflicts', async () => {
    const path = file('csa.yaml', deployment('moved', 2, 'nginx:1'));
    assert.match(await k.ok(['apply', '-f', path]), /deployment.apps\/moved created/);
    assert.ok((await managed('deploy', 'moved')).some((e) => e.manager === 'kubectl-client-side-apply' && e.operation === 'Update'));
    writeFileSync(path, deployment('moved', 3, 'nginx:2'));
    assert.match(await k.ok(['apply', '--server-side', '-f', path]), /deployment.apps\/moved serverside-applied/);
    const d = JSON.parse(await k.ok(['get', 'deploy', 'moved', '-o', 'json', '--show-managed-fields'])) as Json;
    assert.equal(d.spec.replicas, 3);
    assert.equal(d.spec.template.spec.containers[0].image, 'nginx:2');
    const entries = d.metadata.managedFields as Json[];
    assert.ok(!entries.some((e) => e.manager === 'kubectl-client-side-apply'), JSON.stringify(entries.map((e) => e.manager)));
    const applier = entries.find((e) => e.manager === 'kubectl' && e.operation === 'Apply')!;
    assert.deepEqual(applier.fieldsV1['f:spec']['f:replicas'], {});
    // A further change applies as any server-side apply.
    writeFileSync(path, deployment('moved', 5, 'nginx:2'));
    await k.ok(['apply', '--server-side', '-f', path]);
  });

  it('records edit, patch and label under their own managers, and a status write with its subresource', async () => {
    await k.ok(['create', 'configmap', 'edited', '--from-literal=a=1']);
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i \'s/a: "1"/a: "2"/\' "$1"\n');
    chmodSync(editor, 0o755);
    await k.ok(['edit', 'configmap', 'edited'], { env: { KUBE_EDITOR: editor, EDITOR: editor } });
    await k.ok(['patch', 'configmap', 'edited', '-p', '{"data":{"b":"x"}}']);
    await k.ok(['label', 'configmap', 'edited', 'tier=web']);
    const entries = await managed('cm', 'edited');
    const by = (m: string) => entries.find((e) => e.manager === m)?.fieldsV1;
    assert.deepEqual(by('kubectl-edit'), { 'f:data': { 'f:a': {} } });
    assert.deepEqual(by('kubectl-patch'), { 'f:data': { 'f:b': {} } });
    assert.deepEqual(by('kubectl-label'), { 'f:metadata': { 'f:labels': { '.': {}, 'f:tier': {} } } });
    // kubectl create configmap set data and data.a; kubectl-edit took data.a.
    assert.deepEqual(by('kubectl-create'), { 'f:data': { '.': {} } });

    await k.ok(['run', 'runner', '--image=nginx']);
    const pod = await eventually(async () => {
      const e = await managed('pod', 'runner');
      return e.some((x) => x.manager === 'kubelet' && x.subresource === 'status') && e;
    }, 30_000, 'the kubelet\'s status entry');
    const run = pod.find((e) => e.manager === 'kubectl-run')!;
    assert.ok(run.fieldsV1['f:spec']['f:containers']['k:{"name":"runner"}']);
    // Admission's defaults (tolerations, the ServiceAccount) belong to no manager, as upstream.
    assert.equal(run.fieldsV1['f:spec']['f:tolerations'], undefined);
    const kubelet = pod.find((e) => e.manager === 'kubelet')!;
    assert.equal(kubelet.apiVersion, 'v1');
    assert.deepEqual(Object.keys(kubelet.fieldsV1), ['f:status']);
  });

  it('clears managedFields sent as [] and tracks nothing further', async () => {
    await k.ok(['create', 'configmap', 'cleared', '--from-literal=a=1']);
    await k.ok(['patch', 'configmap', 'cleared', '--type=merge', '-p', '{"metadata":{"managedFields":[]}}']);
    assert.equal(await managed('cm', 'cleared'), undefined);
    await k.ok(['patch', 'configmap', 'cleared', '-p', '{"data":{"a":"2"}}']);
    assert.equal(await managed('cm', 'cleared'), undefined);
  });
});
