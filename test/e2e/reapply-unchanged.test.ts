// Re-applying unchanged manifests with client-side apply changes nothing: the server adds no default that
// upstream does not add (kubectl would see the difference in an atomic list and patch it back every time).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../helpers/server.js';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { applyVerbs as verbs } from '../helpers/ecosystem-install.js';

type Json = Record<string, any>;

const corpus = join(projectRoot, 'test', 'fixtures', 'reapply-corpus.yaml');
const documents = readFileSync(corpus, 'utf8').split(/^---$/m).length;

// Upstream's PodDisruptionBudget selector has patch strategy "replace": kubectl's three-way patch always carries
// it, so kube-apiserver's kubectl prints "configured" there as well.
const configuredUpstreamToo = new Set(['poddisruptionbudget.policy/web']);

describe('re-applying typical manifests', () => {
  const env = useKubectlServer({ args: [...noAddons] });

  it('prints "unchanged" for every object the second time', async () => {
    const first = verbs(await env.k.ok(['apply', '-f', corpus]));
    assert.equal(first.size, documents, [...first.keys()].join('\n'));
    for (const [obj, verb] of first) assert.equal(verb, 'created', obj);
    const second = verbs(await env.k.ok(['apply', '-f', corpus]));
    assert.deepEqual([...second.keys()], [...first.keys()]);
    const drifted = [...second].filter(([obj, verb]) => verb !== (configuredUpstreamToo.has(obj) ? 'configured' : 'unchanged'));
    assert.deepEqual(drifted, []);
  });

  it('serves a ServiceAccount subject without an apiGroup, User and Group subjects with rbac.authorization.k8s.io', async () => {
    const rb = JSON.parse(await env.k.ok(['get', 'rolebinding', 'app-reader', '-n', 'corpus', '-o', 'json'])) as Json;
    assert.deepEqual(rb.subjects, [{ kind: 'ServiceAccount', name: 'app', namespace: 'corpus' }]);
    const crb = JSON.parse(await env.k.ok(['get', 'clusterrolebinding', 'corpus-view', '-o', 'json'])) as Json;
    assert.deepEqual(crb.subjects.map((s: Json) => s.apiGroup), [undefined, 'rbac.authorization.k8s.io', 'rbac.authorization.k8s.io']);
    const created = JSON.parse(await env.k.ok(['create', 'rolebinding', 'by-flags', '-n', 'corpus', '--role=app-reader',
      '--serviceaccount=corpus:app', '--user=jane', '-o', 'json'])) as Json;
    assert.deepEqual(created.subjects, [
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'jane' },
      { kind: 'ServiceAccount', name: 'app', namespace: 'corpus' },
    ]);
  });
});
