// The three real installs (ingress-nginx, cert-manager, Gatekeeper) on a server started with
// --simulated-webhooks fail (issue 23): their webhooks fail as on a cluster where nothing listens behind the
// Service, with kube-apiserver's error text; each failurePolicy decides. ingress-nginx's and cert-manager's refuse
// (Fail); Gatekeeper's resource webhooks let objects through (Ignore) but its namespace-label webhook refuses (Fail).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { certManagerTestResources, ecosystemFixture } from '../helpers/ecosystem-install.js';

const ingress = `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: demo, namespace: default}
spec:
  ingressClassName: nginx
  rules:
  - host: demo.localdev.me
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: demo, port: {number: 80}}}}
`;

const ip = String.raw`\d+\.\d+\.\d+\.\d+`;

describe('real installs with --simulated-webhooks fail', () => {
  const env = useKubectlServer({ args: ['--simulated-webhooks', 'fail'] });

  it('ingress-nginx: an Ingress is refused with the webhook call\'s failure', async () => {
    const k = env.k;
    await k.ok(['apply', '-f', ecosystemFixture('ingress-nginx', 'deploy.yaml')]);
    await k.ok(['wait', '--namespace', 'ingress-nginx', '--for=condition=ready', 'pod', '--selector=app.kubernetes.io/component=controller', '--timeout=90s']);
    const err = await k.fails(['apply', '-f', '-'], { input: ingress });
    assert.match(err, new RegExp(String.raw`^Error from server \(InternalError\): error when creating "STDIN": Internal error occurred: failed calling webhook "validate\.nginx\.ingress\.kubernetes\.io": failed to call webhook: Post "https://ingress-nginx-controller-admission\.ingress-nginx\.svc:443/networking/v1/ingresses\?timeout=10s": dial tcp ${ip}:8443: connect: no route to host`, 'm'));
  });

  it('cert-manager: an Issuer and a Certificate are refused, the namespace before them is created', async () => {
    const k = env.k;
    await k.ok(['apply', '-f', ecosystemFixture('cert-manager', 'cert-manager.yaml')]);
    await k.ok(['wait', '--for=condition=ready', 'pod', '--all', '-n', 'cert-manager', '--timeout=90s']);
    const r = await k.run(['apply', '-f', '-'], { input: certManagerTestResources });
    assert.notEqual(r.code, 0);
    assert.equal(r.stdout.trim(), 'namespace/cert-manager-test created');
    for (const kind of ['issuers', 'certificates']) {
      assert.match(r.stderr, new RegExp(String.raw`^Error from server \(InternalError\): error when creating "STDIN": Internal error occurred: failed calling webhook "webhook\.cert-manager\.io": failed to call webhook: Post "https://cert-manager-webhook\.cert-manager\.svc:443/validate\?timeout=30s": dial tcp ${ip}:10250: connect: no route to host`, 'm'), kind);
    }
    assert.equal(r.stderr.match(/^Error from server/gm)?.length, 2);
  });

  it('Gatekeeper: objects pass its Ignore webhooks, a Namespace is refused by its Fail one', async () => {
    const k = env.k;
    await k.ok(['apply', '-f', ecosystemFixture('gatekeeper', 'gatekeeper.yaml')]);
    await k.ok(['wait', '--for=condition=ready', 'pod', '--all', '-n', 'gatekeeper-system', '--timeout=90s']);
    const t = await k.run(['apply', '-f', ecosystemFixture('gatekeeper', 'k8srequiredlabels_template.yaml')]);
    assert.equal(t.code, 0, t.stderr);
    assert.doesNotMatch(t.stderr, /Warning|failed calling/);
    await k.ok(['run', 'web', '--image=nginx']);
    await k.ok(['create', 'deployment', 'api', '--image=nginx']);
    const err = await k.fails(['create', 'namespace', 'shop']);
    assert.match(err, new RegExp(String.raw`^Error from server \(InternalError\): Internal error occurred: failed calling webhook "check-ignore-label\.gatekeeper\.sh": failed to call webhook: Post "https://gatekeeper-webhook-service\.gatekeeper-system\.svc:443/v1/admitlabel\?timeout=3s": dial tcp ${ip}:8443: connect: no route to host`, 'm'));
  });
});
