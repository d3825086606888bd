// ingress-nginx's kind quick start, unchanged, through real kubectl (issue 23): `kubectl apply -f deploy.yaml`, the
// docs' wait for the controller pod, the admission Jobs' kube-webhook-certgen effects (the serving Secret, the
// webhook's caBundle), a second apply, then what a user does next: an Ingress of class nginx (answered by the
// simulated webhook, with its Warning) beside ordinary objects.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { eventually } from '../helpers/kubectl.js';
import { useKubectlServer } from '../helpers/cluster.js';
import { assertAllCreated, assertReapplied, ecosystemFixture, ruleScopeDefault, simulatedWarning } from '../helpers/ecosystem-install.js';

type Json = Record<string, any>;

const manifest = ecosystemFixture('ingress-nginx', 'deploy.yaml');
const jobs = ['ingress-nginx-admission-create', 'ingress-nginx-admission-patch'];

// What the second apply prints against kube-apiserver too.
const upstreamToo = {
  'configmap/ingress-nginx-controller': { verb: 'configured', why: 'the manifest says `data: null`, which is never stored: kubectl sends {"data":null} every time' },
  'validatingwebhookconfiguration.admissionregistration.k8s.io/ingress-nginx-admission': { verb: 'configured', why: ruleScopeDefault },
  'job.batch/ingress-nginx-admission-create': { verb: 'created', why: 'ttlSecondsAfterFinished: 0 deleted the finished Job' },
  'job.batch/ingress-nginx-admission-patch': { verb: 'created', why: 'ttlSecondsAfterFinished: 0 deleted the finished Job' },
};

describe('installing ingress-nginx (kind provider manifest)', () => {
  const env = useKubectlServer();

  it('installs as the docs say: the controller Ready, the admission Jobs Complete, the webhook\'s caBundle set', async () => {
    const k = env.k;
    const watch = k.start(['get', 'jobs', '-n', 'ingress-nginx', '-w', '-o', 'jsonpath={.metadata.name}={.status.conditions[?(@.type=="Complete")].status}{"\\n"}']);
    try {
      const first = assertAllCreated(manifest, await k.ok(['apply', '-f', manifest]));
      await k.ok(['wait', '--namespace', 'ingress-nginx', '--for=condition=ready', 'pod', '--selector=app.kubernetes.io/component=controller', '--timeout=90s']);
      for (const job of jobs) await eventually(() => watch.out().includes(`${job}=True`), 60_000, `${job} Complete`);
      // ttlSecondsAfterFinished: 0: both Jobs go once finished, as on a cluster.
      await k.ok(['wait', '--for=delete', '-n', 'ingress-nginx', ...jobs.map((j) => `job/${j}`), '--timeout=60s']);
      const secret = JSON.parse(await k.ok(['get', 'secret', 'ingress-nginx-admission', '-n', 'ingress-nginx', '-o', 'json'])) as Json;
      assert.deepEqual(Object.keys(secret.data).sort(), ['ca', 'cert', 'key']);
      const hook = JSON.parse(await k.ok(['get', 'validatingwebhookconfiguration', 'ingress-nginx-admission', '-o', 'json'])) as Json;
      assert.equal(hook.webhooks[0].clientConfig.caBundle, secret.data.ca);
      assert.equal(hook.webhooks[0].failurePolicy, 'Fail');

      assertReapplied(first, await k.ok(['apply', '-f', manifest]), upstreamToo);
      // The re-created Jobs run again and change nothing: same CA in the webhook.
      for (const job of jobs) await k.ok(['wait', '--for=delete', '-n', 'ingress-nginx', `job/${job}`, '--timeout=60s']);
      const again = JSON.parse(await k.ok(['get', 'validatingwebhookconfiguration', 'ingress-nginx-admission', '-o', 'json'])) as Json;
      assert.equal(again.webhooks[0].clientConfig.caBundle, secret.data.ca);
    } finally {
      watch.stop();
    }
  });

  it('accepts an Ingress of class nginx through the simulated webhook, and ordinary objects', async () => {
    const k = env.k;
    await k.ok(['create', 'deployment', 'demo', '--image=httpd', '--port=80']);
    await k.ok(['expose', 'deployment', 'demo']);
    const r = await k.run(['create', 'ingress', 'demo', '--class=nginx', '--rule=demo.localdev.me/*=demo:80']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^ingress\.networking\.k8s\.io\/demo created$/m);
    assert.match(r.stderr, simulatedWarning('validate.nginx.ingress.kubernetes.io'));
    assert.equal(await k.ok(['get', 'ingress', 'demo', '-o', 'jsonpath={.spec.ingressClassName}']), 'nginx');
    await k.ok(['create', 'namespace', 'shop']);
    await k.ok(['run', 'web', '-n', 'shop', '--image=nginx']);
    await k.ok(['create', 'deployment', 'api', '-n', 'shop', '--image=nginx', '--replicas=2']);
    await k.ok(['rollout', 'status', 'deployment/api', '-n', 'shop', '--timeout=60s']);
  });
});
