// `kubectl get` of every served kind prints the server's (upstream's) columns, plain and wide.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { useKubectlServer, noAddons } from '../helpers/cluster.js';
import { allResources } from '../../src/registry/resources/index.js';
import { tablePrinterOf } from '../../src/registry/tables/def-printer.js';
import { servedVersions } from '../../src/registry/resource.js';

describe('tables for every kind', () => {
  const env = useKubectlServer({ args: [...noAddons] });

  const listable = allResources.filter((d) => (d.verbs ?? ['list']).includes('list'));
  it(`prints the header of each of ${listable.length} listable kinds`, async () => {
    // A few objects so that most tables have rows.
    await env.k.ok(['create', 'deployment', 'web', '--image=nginx']);
    await env.k.ok(['create', 'configmap', 'c', '--from-literal=a=b']);
    await env.k.ok(['create', 'priorityclass', 'p', '--value=5']);
    // Every kind plain and wide: independent reads, run a few at a time and checked in order.
    const gets = listable.flatMap((d) => [false, true].map((wide) => {
      const resource = `${d.plural}${d.group ? `.${servedVersions(d)[0]}.${d.group}` : ''}`;
      return { d, resource, wide, args: ['get', resource, ...(d.namespaced ? ['-A'] : []), ...(wide ? ['-o', 'wide'] : [])] };
    }));
    const results = await env.k.runMany(gets.map((g) => g.args));
    gets.forEach(({ d, resource, wide, args }, i) => {
      const r = results[i];
      const columns = tablePrinterOf(d).columns;
      assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
      if (!r.stdout.trim()) {
        assert.match(r.stderr, /No resources found/, `${resource}: no rows and no message`);
        return;
      }
      const header = r.stdout.split('\n')[0].trim().split(/\s{2,}/);
      const expected = [...(d.namespaced ? ['NAMESPACE'] : []), ...columns.filter((c) => wide || c.priority === 0).map((c) => c.name.toUpperCase())];
      assert.deepEqual(header, expected, `${args.join(' ')}`);
    });
  });

  it('prints every cause of an invalid object as a bullet line', async () => {
    const pod = JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'broken' }, spec: { restartPolicy: 'Sometimes', containers: [{ name: 'c' }] } });
    const err = await env.k.fails(['create', '-f', '-'], { input: pod });
    assert.match(err, /The Pod "broken" is invalid: \n\* spec\.containers\[0\]\.image: Required value\n\* spec\.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"/);
  });
});
