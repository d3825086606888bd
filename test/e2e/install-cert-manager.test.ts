// cert-manager's release manifest, unchanged, through real kubectl (issue 23): `kubectl apply -f cert-manager.yaml`,
// the docs' wait for its three Deployments, a second apply, then the docs' verification resources (a self-signed
// Issuer and a Certificate, answered by the simulated webhook with its Warning) beside ordinary objects. The
// controllers are simulated: nothing issues the Certificate (docs/cluster.md, issue 23).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { assertAllCreated, assertReapplied, certManagerTestResources, ecosystemFixture, ruleScopeDefault, simulatedWarning } from '../helpers/ecosystem-install.js';

const manifest = ecosystemFixture('cert-manager', 'cert-manager.yaml');

const upstreamToo = {
  'mutatingwebhookconfiguration.admissionregistration.k8s.io/cert-manager-webhook': { verb: 'configured', why: ruleScopeDefault },
  'validatingwebhookconfiguration.admissionregistration.k8s.io/cert-manager-webhook': { verb: 'configured', why: ruleScopeDefault },
};

describe('installing cert-manager (release manifest)', () => {
  const env = useKubectlServer();

  it('installs as the docs say: the three Deployments Available, and a second apply changes nothing', async () => {
    const k = env.k;
    const first = assertAllCreated(manifest, await k.ok(['apply', '-f', manifest]));
    await k.ok(['wait', '--for=condition=Available', '-n', 'cert-manager', '--timeout=90s',
      'deployment/cert-manager', 'deployment/cert-manager-cainjector', 'deployment/cert-manager-webhook']);
    await k.ok(['wait', '--for=condition=ready', 'pod', '--all', '-n', 'cert-manager', '--timeout=90s']);
    assertReapplied(first, await k.ok(['apply', '-f', manifest]), upstreamToo);
  });

  it('accepts a self-signed Issuer and a Certificate through the simulated webhook, and ordinary objects', async () => {
    const k = env.k;
    const r = await k.run(['apply', '-f', '-'], { input: certManagerTestResources });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), ['namespace/cert-manager-test created', 'issuer.cert-manager.io/test-selfsigned created',
      'certificate.cert-manager.io/selfsigned-cert created'].join('\n'));
    assert.match(r.stderr, simulatedWarning('webhook.cert-manager.io'));
    assert.equal(await k.ok(['get', 'certificate', 'selfsigned-cert', '-n', 'cert-manager-test', '-o', 'jsonpath={.spec.issuerRef.name}']), 'test-selfsigned');
    const again = await k.ok(['apply', '-f', '-'], { input: certManagerTestResources });
    assert.doesNotMatch(again, /configured|created/);
    await k.ok(['create', 'namespace', 'shop']);
    await k.ok(['run', 'web', '-n', 'shop', '--image=nginx']);
    await k.ok(['create', 'deployment', 'api', '-n', 'shop', '--image=nginx']);
    await k.ok(['rollout', 'status', 'deployment/api', '-n', 'shop', '--timeout=60s']);
  });
});
