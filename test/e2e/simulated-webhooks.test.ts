// Webhooks whose Service is backed by simulated pods, as install manifests leave them (issue 23): by default the
// simulation answers (allowed, no patch, a Warning naming the webhook); annotated with bonsai.dev/forward-to, the
// Service's webhooks are called for real on this machine (an HTTPS server in this test, its certificate for the
// Service's DNS name); with --simulated-webhooks fail the call fails as on a cluster where nothing listens.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { useKubectlServer, type KubectlEnv, noAddons } from '../helpers/cluster.js';
import { ClusterCa, generateCa } from '../../src/auth/pki/cluster-ca.js';

type Json = Record<string, any>;

function serve(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
    const labels: Json = review.request.object?.metadata?.labels ?? {};
    const deny = labels.deny === 'yes' && req.url?.startsWith('/validate');
    const response: Json = { uid: review.request.uid, allowed: !deny };
    if (deny) response.status = { message: 'the local webhook server says no' };
    if (req.url?.startsWith('/mutate')) {
      const patch = [{ op: 'add', path: '/metadata/annotations', value: { 'seen-by': 'local-server' } }];
      Object.assign(response, { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') });
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
  });
}

/** A webhook Deployment and its Service in `hooks`, and webhooks for ConfigMaps in namespaces labelled hooked=yes. */
async function install(env: KubectlEnv, caBundle: string): Promise<void> {
  const k = env.k;
  await k.ok(['create', 'namespace', 'hooks']);
  await k.ok(['create', 'namespace', 'apps']);
  await k.ok(['label', 'namespace', 'apps', 'hooked=yes']);
  await k.ok(['create', 'deployment', 'webhook', '-n', 'hooks', '--image=registry.example/webhook:1', '--port=8443']);
  await k.ok(['expose', 'deployment', 'webhook', '-n', 'hooks', '--port=443', '--target-port=8443']);
  await k.ok(['rollout', 'status', 'deployment/webhook', '-n', 'hooks', '--timeout=60s']);
  const hook = (name: string, path: string) => `- name: ${name}
  clientConfig:
    service: {namespace: hooks, name: webhook, path: ${path}}
    caBundle: ${caBundle}
  rules: [{apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}]
  namespaceSelector: {matchLabels: {hooked: "yes"}}
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
`;
  const yaml = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: check}
webhooks:
${hook('check.hooks.example.com', '/validate')}---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: stamp}
webhooks:
${hook('stamp.hooks.example.com', '/mutate')}`;
  await k.ok(['apply', '-f', '-'], { input: yaml });
}

describe('webhooks served by simulated pods', () => {
  let server: Server;
  let port = 0;
  let caBundle = '';
  before(async () => {
    const ca = await generateCa('simulated-webhooks-ca');
    const serving = await new ClusterCa(ca.certPem, ca.keyPem).issueKeyPair('server', [{ CN: ['webhook'] }], 1, { dns: ['webhook.hooks.svc'], ips: [] });
    server = createServer({ key: serving.keyPem, cert: serving.certPem }, serve);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    caBundle = Buffer.from(ca.certPem).toString('base64');
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  describe('by default', () => {
    const env = useKubectlServer({ args: [...noAddons] });

    it('allows what they match, without a patch, and warns naming each webhook', async () => {
      await install(env, caBundle);
      const r = await env.k.run(['create', 'configmap', 'first', '-n', 'apps', '--from-literal=a=b']);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^configmap\/first created$/m);
      assert.match(r.stderr, /^Warning: webhook "stamp\.hooks\.example\.com" is served by simulated pods \(service hooks\/webhook\): allowed without calling it/m);
      assert.match(r.stderr, /^Warning: webhook "check\.hooks\.example\.com" is served by simulated pods \(service hooks\/webhook\)/m);
      assert.equal(await env.k.ok(['get', 'configmap', 'first', '-n', 'apps', '-o', 'jsonpath={.metadata.annotations}']), '');
    });

    it('calls a server on this machine for a Service annotated bonsai.dev/forward-to', async () => {
      await env.k.ok(['annotate', 'service', 'webhook', '-n', 'hooks', `bonsai.dev/forward-to=127.0.0.1:${port}`]);
      const denied = await env.k.fails(['create', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: refused, namespace: apps, labels: {deny: "yes"}}\n' });
      assert.match(denied, /admission webhook "check\.hooks\.example\.com" denied the request: the local webhook server says no/);
      const r = await env.k.run(['create', 'configmap', 'second', '-n', 'apps', '--from-literal=a=b']);
      assert.equal(r.code, 0, r.stderr);
      assert.doesNotMatch(r.stderr, /simulated pods/);
      assert.equal(await env.k.ok(['get', 'configmap', 'second', '-n', 'apps', '-o', 'jsonpath={.metadata.annotations.seen-by}']), 'local-server');
    });

    it('refuses a forward to an address that is not this machine\'s', async () => {
      await env.k.ok(['annotate', '--overwrite', 'service', 'webhook', '-n', 'hooks', 'bonsai.dev/forward-to=443=192.0.2.1:9443']);
      const err = await env.k.fails(['create', 'configmap', 'third', '-n', 'apps']);
      assert.match(err, /failed calling webhook "stamp\.hooks\.example\.com": failed to call webhook: Post "https:\/\/webhook\.hooks\.svc:443\/mutate\?timeout=10s": annotation bonsai\.dev\/forward-to: 192\.0\.2\.1 is not an address of this machine/);
    });
  });

  describe('with --simulated-webhooks fail', () => {
    const env = useKubectlServer({ args: [...noAddons, '--simulated-webhooks', 'fail'] });

    it('fails the call as on a cluster where nothing listens, and the failure policy refuses', async () => {
      await install(env, caBundle);
      const err = await env.k.fails(['create', 'configmap', 'first', '-n', 'apps']);
      assert.match(err, /Internal error occurred: failed calling webhook "stamp\.hooks\.example\.com": failed to call webhook: Post "https:\/\/webhook\.hooks\.svc:443\/mutate\?timeout=10s": dial tcp [\d.]+:8443: connect: no route to host/);
    });
  });
});
