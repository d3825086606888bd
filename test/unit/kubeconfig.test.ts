// The written kubeconfig is YAML that kubectl and the clients read: one cluster, user and context named bonsai.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { kubeconfigYaml } from '../../src/cli/kubeconfig.js';

test('kubeconfig parses to the expected document for http, https and IPv6 URLs', () => {
  for (const url of ['http://127.0.0.1:6443', 'https://example.test:443', 'http://[::1]:40123']) {
    const doc = parse(kubeconfigYaml(url)) as Record<string, unknown>;
    assert.deepEqual(doc, {
      apiVersion: 'v1', kind: 'Config', preferences: {},
      clusters: [{ name: 'bonsai', cluster: url.startsWith('http:') ? { server: url, 'insecure-skip-tls-verify': true } : { server: url } }],
      users: [{ name: 'bonsai', user: {} }],
      contexts: [{ name: 'bonsai', context: { cluster: 'bonsai', user: 'bonsai', namespace: 'default' } }],
      'current-context': 'bonsai',
    });
  }
});
