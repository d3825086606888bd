// Add-ons: by default Bonsai installs every add-on's CRDs after it starts serving (kubectl get crd lists them,
// Established, labelled with their add-on), and `--addons` in the --controllers syntax leaves some out.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer } from '../helpers/cluster.js';
import { eventually } from '../helpers/kubectl.js';
import { runBonsai } from '../helpers/server.js';
import { startBonsai } from '../../src/main.js';

const sandboxCrds = ['sandboxes.agents.x-k8s.io', 'sandboxclaims.extensions.agents.x-k8s.io', 'sandboxtemplates.extensions.agents.x-k8s.io', 'sandboxwarmpools.extensions.agents.x-k8s.io'];

describe('add-ons installed by default', () => {
  const env = useKubectlServer({ args: ['--nodes', '0'] });

  it('installs the add-ons\' CRDs, Established, and serves their kinds', async () => {
    const out = await eventually(async () => {
      const r = await env.k.run(['get', 'crd', '-l', 'bonsai.dev/addon']);
      return sandboxCrds.every((n) => r.stdout.includes(`${n} `)) && r.stdout;
    }, 30_000, 'the sandbox CRDs');
    assert.match(out, /^NAME\s+CREATED AT$/m);
    await env.k.ok(['wait', '--for', 'condition=established', 'crd', ...sandboxCrds, '--timeout=30s']);
    const crd = JSON.parse(await env.k.ok(['get', 'crd', 'sandboxes.agents.x-k8s.io', '-o', 'json']));
    assert.equal(crd.metadata.labels['bonsai.dev/addon'], 'sandbox');
    assert.match(crd.metadata.annotations['bonsai.dev/addon-manifest-hash'], /^[0-9a-f]{32}$/);
    const res = await eventually(async () => {
      const r = await env.k.run(['api-resources', '--api-group', 'agents.x-k8s.io']);
      return /^sandboxes\s/m.test(r.stdout) && r.stdout;
    }, 10_000, 'sandboxes in discovery');
    assert.match(res, /agents\.x-k8s\.io\/v1/);
    // The add-on's identity and its RBAC, as its install manifests would create them.
    await env.k.ok(['get', 'serviceaccount', '-n', 'kube-system', 'sandbox-controller']);
    const binding = JSON.parse(await env.k.ok(['get', 'clusterrolebinding', 'bonsai:addon:sandbox', '-o', 'json']));
    assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: 'sandbox-controller', namespace: 'kube-system' }]);
    const role = JSON.parse(await env.k.ok(['get', 'clusterrole', 'bonsai:addon:sandbox', '-o', 'json']));
    assert.ok(role.rules.some((r: { apiGroups: string[] }) => r.apiGroups.includes('agents.x-k8s.io')), JSON.stringify(role.rules));
  });
});

describe('--addons leaves add-ons out', () => {
  it('installs no CRD of an add-on left out', async () => {
    // In process, to know when the selected add-ons are all up (none here: the rest would be installed by then).
    const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: ['-sandbox'] });
    try {
      await b.addonsReady;
      const crds = b.store.list('apiextensions.k8s.io/customresourcedefinitions').map((c) => c.metadata.name);
      for (const n of sandboxCrds) assert.ok(!crds.includes(n), `${n} installed`);
    } finally {
      await b.close();
    }
  });

  it('installs those selected by name', async () => {
    const b = await startBonsai({ port: 0, data: ':memory:', logLevel: 'silent', cluster: { nodes: 0 }, addons: ['sandbox'] });
    try {
      await b.addonsReady;
      const crds = b.store.list('apiextensions.k8s.io/customresourcedefinitions').map((c) => c.metadata.name);
      for (const n of sandboxCrds) assert.ok(crds.includes(n), `${n} missing`);
    } finally {
      await b.close();
    }
  });

  it('refuses an unknown add-on name', async () => {
    const r = await runBonsai(['serve', '--port', '0', '--data', ':memory:', '--addons', '*,-nope']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unknown add-on "-nope"; known: sandbox/);
  });
});
