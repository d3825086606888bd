// The written kubeconfig is YAML that kubectl and the clients read: one cluster, user and context named bonsai,
// authenticating as the admin with the bearer token over plain HTTP and a client certificate over TLS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { kubeconfigYaml } from '../../src/cli/kubeconfig.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');

test('kubeconfig parses to the expected document for http, https and IPv6 URLs', () => {
  const creds = { token: 'tok"en', ca: 'CA PEM\n', clientCert: 'CERT PEM\n', clientKey: 'KEY PEM\n' };
  for (const url of ['http://127.0.0.1:6443', 'https://example.test:443', 'http://[::1]:40123']) {
    const doc = parse(kubeconfigYaml(url, url.startsWith('http:') ? { token: creds.token } : creds)) as Record<string, unknown>;
    assert.deepEqual(doc, {
      apiVersion: 'v1', kind: 'Config', preferences: {},
      clusters: [{ name: 'bonsai', cluster: url.startsWith('http:') ? { server: url, 'insecure-skip-tls-verify': true } : { server: url, 'certificate-authority-data': b64(creds.ca) } }],
      users: [{ name: 'bonsai', user: url.startsWith('http:') ? { token: creds.token } : { 'client-certificate-data': b64(creds.clientCert), 'client-key-data': b64(creds.clientKey) } }],
      contexts: [{ name: 'bonsai', context: { cluster: 'bonsai', user: 'bonsai', namespace: 'default' } }],
      'current-context': 'bonsai',
    });
  }
});

test('a kubeconfig without credentials has an empty user', () => {
  const doc = parse(kubeconfigYaml('https://127.0.0.1:6443', { ca: 'CA' })) as { users: unknown[]; clusters: Array<{ cluster: Record<string, unknown> }> };
  assert.deepEqual(doc.users, [{ name: 'bonsai', user: {} }]);
  assert.equal(doc.clusters[0].cluster['insecure-skip-tls-verify'], undefined);
});
