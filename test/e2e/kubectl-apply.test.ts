// apply (client- and server-side), diff, edit, patch, label, annotate, replace, scale, set image.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../helpers/server.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

type Json = Record<string, any>;

describe('kubectl apply and friends', () => {
  const env = useKubectlServer({ args: [...noAddons] });
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-apply-'));
  const bundle = readFileSync(join(projectRoot, 'test', 'fixtures', 'bundle.yaml'), 'utf8');
  const getJson = async (...args: string[]) => JSON.parse(await env.k.ok(['get', ...args, '-o', 'json'])) as Json;


  it('applies a multi-document bundle, then exactly the edits of a second apply', async () => {
    const file = join(dir, 'bundle.yaml');
    writeFileSync(file, bundle);
    const out = await env.k.ok(['apply', '-f', file]);
    for (const line of ['serviceaccount/shop created', 'role.rbac.authorization.k8s.io/shop-reader created', 'rolebinding.rbac.authorization.k8s.io/shop-reader created',
      'configmap/shop-config created', 'secret/shop-secret created', 'service/shop created', 'deployment.apps/shop created', 'ingress.networking.k8s.io/shop created',
      'networkpolicy.networking.k8s.io/shop created', 'horizontalpodautoscaler.autoscaling/shop created', 'poddisruptionbudget.policy/shop created']) {
      assert.ok(out.includes(line), `missing "${line}" in:\n${out}`);
    }
    const again = await env.k.ok(['apply', '-f', file]);
    assert.match(again, /deployment.apps\/shop unchanged/);

    const edited = bundle.replace('image: shop:1.0', 'image: shop:2.0')
      .replace(/        - name: DEBUG\n          value: "false"\n/, '')
      .replace('        - containerPort: 8080\n', '        - containerPort: 8080\n        - containerPort: 9090\n          name: metrics\n')
      .replace('    app: shop\n    tier: web\n', '    app: shop\n');
    assert.notEqual(edited, bundle);
    writeFileSync(file, edited);
    const diff = await env.k.run(['diff', '-f', file]);
    assert.equal(diff.code, 1, diff.stderr);
    assert.match(diff.stdout, /-\s+image: shop:1\.0/);
    assert.match(diff.stdout, /\+\s+image: shop:2\.0/);
    assert.match(await env.k.ok(['apply', '-f', file]), /deployment.apps\/shop configured/);
    const d = await getJson('deploy', 'shop');
    const c = d.spec.template.spec.containers[0];
    assert.equal(c.image, 'shop:2.0');
    assert.deepEqual(c.env, [{ name: 'MODE', value: 'prod' }]);
    assert.deepEqual(c.ports.map((p: Json) => p.containerPort), [8080, 9090]);
    assert.deepEqual(d.metadata.labels, { app: 'shop' });
    assert.equal(d.metadata.generation, 2);
    assert.deepEqual(c.envFrom, [{ configMapRef: { name: 'shop-config' } }]);
    const hpa = await getJson('hpa', 'shop');
    assert.equal(hpa.spec.metrics[0].resource.target.averageUtilization, 70);
    const hpaV1 = JSON.parse(await env.k.ok(['get', 'horizontalpodautoscalers.v1.autoscaling', 'shop', '-o', 'json'])) as Json;
    assert.equal(hpaV1.apiVersion, 'autoscaling/v1');
    assert.equal(hpaV1.spec.targetCPUUtilizationPercentage, 70);
  });

  it('applies server-side', async () => {
    const file = join(dir, 'ssa.yaml');
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: "1"\n  b: "2"\n');
    assert.match(await env.k.ok(['apply', '--server-side', '-f', file]), /configmap\/ssa serverside-applied/);
    writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ssa\ndata:\n  a: "1"\n  c: "3"\n');
    await env.k.ok(['apply', '--server-side', '-f', file]);
    const cm = JSON.parse(await env.k.ok(['get', 'cm', 'ssa', '-o', 'json', '--show-managed-fields'])) as Json;
    assert.deepEqual(cm.data, { a: '1', c: '3' });
    assert.ok(cm.metadata.managedFields.some((m: Json) => m.manager === 'kubectl' && m.operation === 'Apply'));
  });

  it('edits through KUBE_EDITOR', async () => {
    const editor = join(dir, 'editor.sh');
    writeFileSync(editor, '#!/bin/sh\nsed -i \'s/LOG_LEVEL: info/LOG_LEVEL: debug/\' "$1"\n');
    chmodSync(editor, 0o755);
    assert.match(await env.k.ok(['edit', 'configmap', 'shop-config'], { env: { KUBE_EDITOR: editor, EDITOR: editor } }), /configmap\/shop-config edited/);
    assert.equal((await getJson('cm', 'shop-config')).data.LOG_LEVEL, 'debug');
  });

  it('patches with json, merge and strategic patches; labels and annotates', async () => {
    await env.k.ok(['patch', 'deploy', 'shop', '--type', 'json', '-p', '[{"op":"replace","path":"/spec/replicas","value":4}]']);
    assert.equal((await getJson('deploy', 'shop')).spec.replicas, 4);
    await env.k.ok(['patch', 'deploy', 'shop', '--type', 'merge', '-p', '{"spec":{"minReadySeconds":5}}']);
    assert.equal((await getJson('deploy', 'shop')).spec.minReadySeconds, 5);
    await env.k.ok(['patch', 'deploy', 'shop', '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"envoy:1"}]}}}}']);
    const names = (await getJson('deploy', 'shop')).spec.template.spec.containers.map((c: Json) => c.name);
    assert.deepEqual(names.sort(), ['app', 'sidecar']);
    const failed = await env.k.fails(['patch', 'deploy', 'shop', '--type', 'json', '-p', '[{"op":"test","path":"/spec/replicas","value":99}]']);
    assert.match(failed, /Error from server|error/);
    await env.k.ok(['label', 'deploy', 'shop', 'team=blue']);
    await env.k.ok(['annotate', 'deploy', 'shop', 'owner=alice']);
    let d = await getJson('deploy', 'shop');
    assert.equal(d.metadata.labels.team, 'blue');
    assert.equal(d.metadata.annotations.owner, 'alice');
    await env.k.ok(['label', 'deploy', 'shop', 'team-']);
    d = await getJson('deploy', 'shop');
    assert.equal(d.metadata.labels.team, undefined);
    assert.match(await env.k.ok(['get', 'deploy', '-l', 'app=shop', '--show-labels']), /shop\s+.*app=shop/);
  });

  it('scales, sets images and replaces', async () => {
    assert.match(await env.k.ok(['scale', 'deploy', 'shop', '--replicas=3']), /deployment.apps\/shop scaled/);
    assert.equal((await getJson('deploy', 'shop')).spec.replicas, 3);
    assert.match(await env.k.ok(['set', 'image', 'deploy/shop', 'app=shop:3.0']), /deployment.apps\/shop image updated/);
    assert.equal((await getJson('deploy', 'shop')).spec.template.spec.containers.find((c: Json) => c.name === 'app').image, 'shop:3.0');
    const cm = await getJson('cm', 'shop-config');
    cm.data.EXTRA = 'yes';
    const file = join(dir, 'replace.json');
    writeFileSync(file, JSON.stringify(cm));
    assert.match(await env.k.ok(['replace', '-f', file]), /configmap\/shop-config replaced/);
    assert.equal((await getJson('cm', 'shop-config')).data.EXTRA, 'yes');
    // The same file again carries the old resourceVersion: a conflict, printed as upstream does.
    const err = await env.k.fails(['replace', '-f', file]);
    assert.match(err, /Error from server \(Conflict\): error when replacing ".*replace\.json": Operation cannot be fulfilled on configmaps "shop-config": the object has been modified; please apply your changes to the latest version and try again/);
  });

  it('reports invalid objects and unknown fields like kube-apiserver', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: bad\nspec:\n  selector:\n    matchLabels: {app: a}\n  template:\n    metadata:\n      labels: {app: b}\n    spec:\n      containers:\n      - name: c\n        image: x\n');
    const err = await env.k.fails(['apply', '-f', bad]);
    assert.match(err, /The Deployment "bad" is invalid: (\n\* )?spec\.template\.metadata\.labels: Invalid value: \{"app":"b"\}: `selector` does not match template `labels`/);
    const unknown = join(dir, 'unknown.yaml');
    writeFileSync(unknown, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: u\ndata: {a: b}\nbogus: 1\n');
    const u = await env.k.fails(['create', '-f', unknown]);
    assert.match(u, /unknown field "bogus"/);
    const longName = join(dir, 'long.yaml');
    writeFileSync(longName, `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${'a'.repeat(300)}\n`);
    assert.match(await env.k.fails(['create', '-f', longName]), /metadata\.name: Invalid value: .*must be no more than 253 characters/);
  });
});
