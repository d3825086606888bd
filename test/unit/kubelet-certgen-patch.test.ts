// kube-webhook-certgen `patch` started before its Secret exists (ingress-nginx starts its create and patch Jobs
// together) fails as the program does: exit 1, restarted by the pod's OnFailure policy, and patches the webhook's
// caBundle once the Secret is there. Without this the patch Job completed having patched nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHarness, podSpec } from './kubelet-harness.js';
import type { KObject } from '../../src/machinery/types.js';

const image = 'registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.6.9';

test('certgen patch before its Secret exists exits 1, restarts, and patches once the Secret is there', async () => {
  await withHarness(async (h) => {
    const hooks = h.reg.find('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations')!;
    await h.reg.create(hooks, '', {
      apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'hook' },
      webhooks: [{ name: 'v.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', clientConfig: { service: { namespace: 'default', name: 'svc' } } }],
    });
    await h.create(podSpec('patch', {
      restartPolicy: 'OnFailure',
      containers: [{ name: 'patch', image, args: ['patch', '--webhook-name=hook', '--namespace=default', '--patch-mutating=false', '--secret-name=certs', '--patch-failure-policy=Fail'] }],
    }));
    await h.run(5_000);
    const failed = h.pod('patch')?.status?.containerStatuses?.[0];
    assert.equal(failed?.lastState?.terminated?.exitCode ?? failed?.state?.terminated?.exitCode, 1);
    const webhook = () => (h.store.get('admissionregistration.k8s.io/validatingwebhookconfigurations', '', 'hook') as unknown as { webhooks: { clientConfig: { caBundle?: string }; failurePolicy?: string }[] }).webhooks[0];
    assert.equal(webhook().clientConfig.caBundle, undefined);

    const ca = Buffer.from('-----BEGIN CERTIFICATE-----\n').toString('base64');
    await h.reg.create(h.reg.find('', 'v1', 'secrets')!, 'default', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'certs', namespace: 'default' }, data: { ca } });
    await h.run(60_000);
    const done = h.pod('patch')?.status;
    assert.equal(done?.phase, 'Succeeded');
    assert.ok((done?.containerStatuses?.[0]?.restartCount ?? 0) >= 1);
    assert.equal(webhook().clientConfig.caBundle, ca);
    assert.equal(webhook().failurePolicy, 'Fail');
  });
});
