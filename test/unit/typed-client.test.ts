// The typed client: a built-in resource named by its reference reads and writes as the type generated from the 1.35
// OpenAPI (scripts/gen-types.mjs), and the generated references cover what the registry serves. The type checks run
// when this file is compiled (a wrong type is a build error, an unexpected success of @ts-expect-error too).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { clientFor } from '../../src/client/client.js';
import { ManualClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { builtinResourceRefs } from '../../src/generated/k8s/resources.js';
import type { Pod } from '../../src/generated/k8s/core/v1.js';
import type { Deployment } from '../../src/generated/k8s/apps/v1.js';

function cluster() {
  const store = new SqliteStore({ path: ':memory:' });
  const reg = new Registry(store, allResources, new ManualClock(Date.parse('2026-01-01T00:00:00Z')), createLogger('silent'));
  bootstrap(reg);
  return { store, client: clientFor(reg) };
}

test('a built-in reference reads and writes as its generated type', async () => {
  const { store, client } = cluster();
  try {
    const created: Pod = await client.create('v1/pods', 'default', { metadata: { name: 'web' }, spec: { containers: [{ name: 'app', image: 'nginx' }] } });
    assert.equal(created.metadata.uid?.length, 36);
    const pod = client.get('v1/pods', 'default', 'web');
    // Typed all the way down: the container list is PodSpec's, with its required name.
    const first: string | undefined = pod?.spec?.containers[0].name;
    assert.equal(first, 'app');
    // @ts-expect-error a Pod's spec has no replicas
    assert.equal(pod?.spec?.replicas, undefined);
    const deployments: Deployment[] = client.list('apps/v1/deployments', 'default');
    assert.deepEqual(deployments, []);
    // @ts-expect-error a Deployment is not what pods read as
    const wrong: Deployment | undefined = client.get('v1/pods', 'default', 'web');
    assert.equal(wrong?.metadata.name, 'web');
  } finally {
    store.close();
  }
});

test('the generated references name every built-in resource served in a version the 1.35 OpenAPI has', async () => {
  const generated = new Set<string>(builtinResourceRefs);
  const generatedVersions = new Set(builtinResourceRefs.map((r) => r.slice(0, r.lastIndexOf('/'))));
  const missing: string[] = [];
  let checked = 0;
  for (const def of allResources) {
    const gv = def.group ? `${def.group}/${def.version}` : def.version;
    if (!generatedVersions.has(gv)) continue;
    checked++;
    if (!generated.has(`${gv}/${def.plural}`)) missing.push(`${gv}/${def.plural}`);
  }
  assert.ok(checked > 40, `checked ${checked} resources`);
  assert.deepEqual(missing, []);
});
