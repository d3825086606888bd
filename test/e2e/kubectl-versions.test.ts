// Smoke scenarios with every kubectl from 1.27 to 1.33.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { useKubectlServer } from '../helpers/cluster.js';
import { Kubectl } from '../helpers/kubectl.js';

const versions = ['1.27', '1.28', '1.29', '1.30', '1.31', '1.33'];
const binary = (v: string) => `/usr/lib/google-cloud-sdk/bin/kubectl.${v}`;

// The versions are independent (a namespace each) and mostly wait on rollouts: they run at once.
describe('older and newer kubectl binaries', { concurrency: true }, () => {
  const env = useKubectlServer();

  for (const v of versions) {
    it(`kubectl ${v}: version, create (protobuf), rollout status, apply, get, patch, delete`, { skip: !existsSync(binary(v)) && `kubectl.${v} not installed` }, async () => {
      const k = new Kubectl(env.server.kubeconfig, binary(v));
      const ns = `v${v.replace('.', '-')}`;
      assert.match(await k.ok(['version']), /Server Version: (v1\.35\.0|version\.Info\{.*GitVersion:"v1\.35\.0")/);
      await k.ok(['create', 'namespace', ns]);
      await k.ok(['create', 'deployment', 'web', '--image=nginx', '--replicas=2', '-n', ns]);
      assert.match(await k.ok(['rollout', 'status', 'deploy/web', '-n', ns, '--timeout=30s']), /deployment "web" successfully rolled out/);
      assert.match(await k.ok(['get', 'deploy', 'web', '-n', ns]), /^web\s+2\/2\s+2\s+2\s+\d+s$/m);
      await k.ok(['apply', '-n', ns, '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  a: "1"\n' });
      await k.ok(['apply', '-n', ns, '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cfg\ndata:\n  b: "2"\n' });
      assert.equal(await k.ok(['get', 'cm', 'cfg', '-n', ns, '-o', 'jsonpath={.data}']), '{"b":"2"}');
      await k.ok(['scale', 'deploy', 'web', '--replicas=4', '-n', ns]);
      assert.equal(await k.ok(['get', 'deploy', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas}']), '4');
      assert.match(await k.fails(['get', 'pod', 'nope', '-n', ns]), /Error from server \(NotFound\): pods "nope" not found/);
      assert.match(await k.ok(['delete', 'namespace', ns, '--wait=true', '--timeout=30s']), /deleted/);
    });
  }
});
