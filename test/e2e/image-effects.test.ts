// Utility images with effects on the API, through real kubectl: kube-webhook-certgen's `create` Job makes the
// webhook's serving Secret (so the pod that mounts it starts), and its `patch` Job writes that CA into the
// ValidatingWebhookConfiguration's caBundle with the failure policy asked for, as ingress-nginx's install runs them
// (its args and the POD_NAMESPACE variable they use).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';

const certgenJob = (name: string, args: string[]) => JSON.stringify({
  apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: 'ingress' },
  spec: {
    template: {
      spec: {
        restartPolicy: 'OnFailure',
        containers: [{
          name, image: 'registry.k8s.io/ingress-nginx/kube-webhook-certgen:v1.6.4', args,
          env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
        }],
      },
    },
  },
});

const webhook = JSON.stringify({
  apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'ingress-admission' },
  webhooks: [{
    name: 'validate.ingress.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Ignore',
    clientConfig: { service: { namespace: 'ingress', name: 'controller-admission', path: '/validate' } },
    rules: [{ apiGroups: ['networking.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['ingresses'] }],
  }],
});

describe('images with effects on the API', () => {
  const env = useKubectlServer({ args: [...noAddons] });

  it('kube-webhook-certgen creates the serving Secret and patches the webhook\'s caBundle', async () => {
    const k = env.k;
    await k.ok(['create', 'namespace', 'ingress']);
    await k.ok(['apply', '-f', '-'], { input: webhook });
    // The pod that needs the Secret waits for it.
    await k.ok(['apply', '-f', '-'], { input: JSON.stringify({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'controller', namespace: 'ingress' },
      spec: { containers: [{ name: 'c', image: 'nginx', volumeMounts: [{ name: 'cert', mountPath: '/usr/local/certificates/' }] }], volumes: [{ name: 'cert', secret: { secretName: 'ingress-admission' } }] },
    }) });
    await k.ok(['apply', '-f', '-'], { input: certgenJob('create', ['create', '--host=controller-admission,controller-admission.$(POD_NAMESPACE).svc', '--namespace=$(POD_NAMESPACE)', '--secret-name=ingress-admission']) });
    await k.ok(['wait', '--for=condition=complete', '-n', 'ingress', 'job/create', '--timeout=60s']);
    const keys = await eventually(async () => k.ok(['get', 'secret', 'ingress-admission', '-n', 'ingress', '-o', 'go-template={{range $k, $v := .data}}{{$k}} {{end}}']), 10_000, 'the Secret');
    assert.equal(keys.trim(), 'ca cert key');
    const ca = Buffer.from(await k.ok(['get', 'secret', 'ingress-admission', '-n', 'ingress', '-o', 'jsonpath={.data.ca}']), 'base64').toString('utf8');
    assert.match(ca, /^-----BEGIN CERTIFICATE-----/);
    await eventually(async () => (await k.ok(['get', 'pod', 'controller', '-n', 'ingress', '-o', 'jsonpath={.status.phase}'])) === 'Running', 20_000, 'the controller Running');
    await k.ok(['apply', '-f', '-'], { input: certgenJob('patch', ['patch', '--webhook-name=ingress-admission', '--namespace=$(POD_NAMESPACE)', '--patch-mutating=false', '--secret-name=ingress-admission', '--patch-failure-policy=Fail']) });
    await k.ok(['wait', '--for=condition=complete', '-n', 'ingress', 'job/patch', '--timeout=60s']);
    const patched = await eventually(async () => {
      const w = JSON.parse(await k.ok(['get', 'validatingwebhookconfiguration', 'ingress-admission', '-o', 'json']));
      return w.webhooks[0].clientConfig.caBundle ? w : undefined;
    }, 10_000, 'the caBundle patched');
    assert.equal(Buffer.from(patched.webhooks[0].clientConfig.caBundle, 'base64').toString('utf8'), ca);
    assert.equal(patched.webhooks[0].failurePolicy, 'Fail');
  });
});
