// Gatekeeper's release manifest, unchanged, through real kubectl (issue 23): `kubectl apply -f deploy/gatekeeper.yaml`,
// its Deployments Available and pods Ready, a second apply, then the docs' next steps: the k8srequiredlabels
// ConstraintTemplate (its running pods make the constraint kind's CRD and report it in the template's status) and a
// K8sRequiredLabels constraint, answered by the simulated webhooks with their Warnings, beside ordinary objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { assertAllCreated, assertReapplied, ecosystemFixture, ruleScopeDefault, simulatedWarning } from '../helpers/ecosystem-install.js';

type Json = Record<string, any>;

const manifest = ecosystemFixture('gatekeeper', 'gatekeeper.yaml');
const template = ecosystemFixture('gatekeeper', 'k8srequiredlabels_template.yaml');
const constraint = ecosystemFixture('gatekeeper', 'all_ns_must_have_gatekeeper.yaml');

const upstreamToo = {
  'poddisruptionbudget.policy/gatekeeper-controller-manager': { verb: 'configured', why: 'the PDB selector has patch strategy "replace": kubectl always sends it' },
  'mutatingwebhookconfiguration.admissionregistration.k8s.io/gatekeeper-mutating-webhook-configuration': { verb: 'configured', why: ruleScopeDefault },
  'validatingwebhookconfiguration.admissionregistration.k8s.io/gatekeeper-validating-webhook-configuration': { verb: 'configured', why: ruleScopeDefault },
};

describe('installing Gatekeeper (release manifest)', () => {
  const env = useKubectlServer();

  it('installs as the docs say: Deployments Available, pods Ready, and a second apply changes nothing', async () => {
    const k = env.k;
    const first = assertAllCreated(manifest, await k.ok(['apply', '-f', manifest]));
    await k.ok(['wait', '--for=condition=Available', '-n', 'gatekeeper-system', '--timeout=90s',
      'deployment/gatekeeper-audit', 'deployment/gatekeeper-controller-manager']);
    await k.ok(['wait', '--for=condition=ready', 'pod', '--all', '-n', 'gatekeeper-system', '--timeout=90s']);
    assert.equal(await k.ok(['get', 'pods', '-n', 'gatekeeper-system', '-o', 'name']).then((o) => o.trim().split('\n').length), 4);
    assertReapplied(first, await k.ok(['apply', '-f', manifest]), upstreamToo);
  });

  it('accepts the k8srequiredlabels ConstraintTemplate and a constraint of its kind, and ordinary objects', async () => {
    const k = env.k;
    const t = await k.run(['apply', '-f', template]);
    assert.equal(t.code, 0, t.stderr);
    assert.equal(t.stdout.trim(), 'constrainttemplate.templates.gatekeeper.sh/k8srequiredlabels created');
    assert.match(t.stderr, simulatedWarning('validation.gatekeeper.sh'));
    // Gatekeeper's pods make the constraint kind and say so in the template's status.
    const status = await eventually(async () => {
      const s = JSON.parse(await k.ok(['get', 'constrainttemplate', 'k8srequiredlabels', '-o', 'jsonpath={.status}']) || '{}') as Json;
      return s.created === true && s.byPod?.length === 4 ? s : undefined;
    }, 20_000, 'the template created');
    assert.deepEqual(status.byPod.map((p: Json) => p.operations.includes('webhook') || p.operations.includes('audit')), [true, true, true, true]);
    await k.ok(['wait', '--for=condition=Established', 'crd/k8srequiredlabels.constraints.gatekeeper.sh', '--timeout=30s']);
    const c = await k.run(['apply', '-f', constraint]);
    assert.equal(c.code, 0, c.stderr);
    assert.equal(c.stdout.trim(), 'k8srequiredlabels.constraints.gatekeeper.sh/ns-must-have-gk created');
    assert.match(c.stderr, simulatedWarning('validation.gatekeeper.sh'));
    assert.equal(await k.ok(['get', 'constraints', '-o', 'name']), 'k8srequiredlabels.constraints.gatekeeper.sh/ns-must-have-gk\n');
    assert.equal(await k.ok(['get', 'k8srequiredlabels', 'ns-must-have-gk', '-o', 'jsonpath={.spec.enforcementAction}']), 'deny');
    assert.match(await k.ok(['apply', '-f', template]), /unchanged$/m);
    assert.match(await k.ok(['apply', '-f', constraint]), /unchanged$/m);
    // The namespace webhook (check-ignore-label) is simulated too: an ordinary Namespace, Pod and Deployment go through.
    const ns = await k.run(['create', 'namespace', 'shop']);
    assert.equal(ns.code, 0, ns.stderr);
    assert.match(ns.stderr, simulatedWarning('check-ignore-label.gatekeeper.sh'));
    await k.ok(['run', 'web', '-n', 'shop', '--image=nginx']);
    await k.ok(['create', 'deployment', 'api', '-n', 'shop', '--image=nginx']);
    await k.ok(['rollout', 'status', 'deployment/api', '-n', 'shop', '--timeout=60s']);
    // A template whose name is not its kind lower-cased makes no CRD: the template's status says why.
    await k.ok(['apply', '-f', '-'], { input: 'apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata: {name: required-owner}\nspec:\n  crd: {spec: {names: {kind: K8sRequiredOwner}}}\n  targets: [{target: admission.k8s.gatekeeper.sh, rego: "package x"}]\n' });
    const refused = await eventually(async () => {
      const s = JSON.parse(await k.ok(['get', 'constrainttemplate', 'required-owner', '-o', 'jsonpath={.status}']) || '{}') as Json;
      return s.byPod?.[0]?.errors ? s : undefined;
    }, 20_000, 'the template\'s error');
    assert.equal(refused.created, false);
    assert.equal(refused.byPod[0].errors[0].code, 'ingest_error');
    assert.match(refused.byPod[0].errors[0].message, /name "required-owner" is not equal to the lowercase of CRD's Kind: "k8srequiredowner"/);
    // Deleting the template removes its constraint kind.
    await k.ok(['delete', 'constrainttemplate', 'k8srequiredlabels']);
    await k.ok(['wait', '--for=delete', 'crd/k8srequiredlabels.constraints.gatekeeper.sh', '--timeout=30s']);
  });
});
