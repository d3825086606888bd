// The kubeconfig Bonsai writes is merged into the file already there: a user's contexts, current context,
// comments and their namespace on Bonsai's context survive a restart; only Bonsai's entries are updated.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { kubeconfigYaml, mergeKubeconfig, writeMergedKubeconfig } from '../../src/cli/kubeconfig.js';

interface Named { name: string; [k: string]: unknown }
interface Config { 'current-context': string; clusters: Named[]; users: Named[]; contexts: Array<{ name: string; context: Record<string, string> }> }
const read = (text: string) => parse(text) as Config;
const named = <T extends { name: string }>(list: T[], name: string) => list.find((e) => e.name === name);

const userFile = `# my clusters
apiVersion: v1
kind: Config
clusters:
  - name: prod
    cluster:
      server: https://prod.example:6443
  - name: bonsai
    cluster:
      server: http://127.0.0.1:1111
      insecure-skip-tls-verify: true
users:
  - name: me
    user:
      token: mine
  - name: bonsai
    user:
      token: old-token
contexts:
  - name: prod
    context:
      cluster: prod
      user: me
  - name: bonsai
    context:
      cluster: bonsai
      user: bonsai
      namespace: team-a
current-context: prod
`;

describe('kubeconfig merge', () => {
  it('updates only Bonsai\'s cluster, user and context; keeps the rest, the current context and comments', () => {
    const out = mergeKubeconfig(userFile, 'http://127.0.0.1:2222', { token: 'new-token' });
    const c = read(out);
    assert.equal(c['current-context'], 'prod');
    assert.deepEqual(named(c.clusters, 'prod'), { name: 'prod', cluster: { server: 'https://prod.example:6443' } });
    assert.deepEqual(named(c.users, 'me'), { name: 'me', user: { token: 'mine' } });
    assert.equal((named(c.clusters, 'bonsai')!.cluster as { server: string }).server, 'http://127.0.0.1:2222');
    assert.deepEqual(named(c.users, 'bonsai')!.user, { token: 'new-token' });
    assert.deepEqual(named(c.contexts, 'bonsai')!.context, { cluster: 'bonsai', user: 'bonsai', namespace: 'team-a' });
    assert.equal(c.clusters.length, 2);
    assert.equal(c.users.length, 2);
    assert.equal(c.contexts.length, 2);
    assert.match(out, /^# my clusters/);
  });

  it('switching to TLS replaces the stale cluster and user fields', () => {
    const out = mergeKubeconfig(userFile, 'https://127.0.0.1:3333', { ca: 'CA', clientCert: 'CERT', clientKey: 'KEY' });
    const c = read(out);
    const cl = named(c.clusters, 'bonsai')!.cluster as Record<string, string>;
    assert.equal(cl['insecure-skip-tls-verify'], undefined);
    assert.equal(cl['certificate-authority-data'], Buffer.from('CA').toString('base64'));
    assert.equal((named(c.users, 'bonsai')!.user as Record<string, string>).token, undefined);
  });

  it('adds Bonsai\'s entries to a file without them; sets a current context only when there is none', () => {
    const other = 'apiVersion: v1\nkind: Config\nclusters:\n  - name: x\n    cluster: {server: "https://x"}\ncontexts: []\ncurrent-context: ""\n';
    const c = read(mergeKubeconfig(other, 'http://127.0.0.1:1', { token: 't' }));
    assert.equal(c['current-context'], 'bonsai');
    assert.deepEqual(c.clusters.map((e) => e.name), ['x', 'bonsai']);
    assert.deepEqual(c.users.map((e) => e.name), ['bonsai']);
    assert.deepEqual(c.contexts.map((e) => e.name), ['bonsai']);
  });

  it('a file that is not a kubeconfig mapping, or is empty, is replaced by a fresh one', () => {
    const fresh = kubeconfigYaml('http://127.0.0.1:1', { token: 't' });
    assert.equal(mergeKubeconfig('- just\n- a list\n', 'http://127.0.0.1:1', { token: 't' }), fresh);
    assert.equal(mergeKubeconfig(': : :\n\t{', 'http://127.0.0.1:1', { token: 't' }), fresh);
    assert.equal(mergeKubeconfig('', 'http://127.0.0.1:1', { token: 't' }), fresh);
  });

  it('a kubeconfig with hostile keys merges without touching Object.prototype', () => {
    const hostile = 'apiVersion: v1\n__proto__: {polluted: true}\nclusters:\n  - name: bonsai\n    __proto__: {x: 1}\n    cluster: {server: "http://a"}\n';
    const out = mergeKubeconfig(hostile, 'http://127.0.0.1:9', { token: 't' });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.match(out, /server: "?http:\/\/127\.0\.0\.1:9/);
  });

  it('writeMergedKubeconfig writes a private file, then merges on the next start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bonsai-kc-'));
    try {
      const p = join(dir, 'kubeconfig');
      writeMergedKubeconfig(p, 'http://127.0.0.1:1', { token: 'a' });
      assert.equal(statSync(p).mode & 0o777, 0o600);
      // The user switches context and adds their own entries (as `kubectl config` would).
      writeFileSync(p, readFileSync(p, 'utf8').replace('current-context: bonsai', 'current-context: mine') + '');
      writeMergedKubeconfig(p, 'http://127.0.0.1:2', { token: 'b' });
      const c = read(readFileSync(p, 'utf8'));
      assert.equal(c['current-context'], 'mine');
      assert.equal((named(c.clusters, 'bonsai')!.cluster as { server: string }).server, 'http://127.0.0.1:2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
