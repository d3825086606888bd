// The add-on framework: `--addons` selection, CRD installation (create, no write when the manifest is unchanged,
// update when it changed), waiting for Established, and starting an add-on with its own identity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/storage/sqlite-store.js';
import { Registry } from '../../src/registry/registry.js';
import { allResources } from '../../src/registry/resources/index.js';
import { bootstrap } from '../../src/registry/bootstrap.js';
import { ScaledClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { clientFor } from '../../src/client/client.js';
import { startApiExtensions } from '../../src/apiextensions/index.js';
import { addonIdentity, addonNames, selectAddons } from '../../src/addons/index.js';
import { applyCrd, crdRef, declaredNames, installCrdFiles, manifestHashAnnotation, readCrdManifests, waitEstablished } from '../../src/addons/install.js';

test('selectAddons takes the --controllers syntax', () => {
  // Every add-on by default; the list grows as add-ons join, so compare against it.
  assert.deepEqual(selectAddons(), addonNames);
  assert.deepEqual(selectAddons(['*']), addonNames);
  assert.deepEqual(selectAddons(['*,-sandbox']), addonNames.filter((n) => n !== 'sandbox'));
  assert.deepEqual(selectAddons(['-sandbox']), []);
  assert.deepEqual(selectAddons(['sandbox']), ['sandbox']);
  assert.deepEqual(selectAddons(['']), []);
  assert.deepEqual(selectAddons([]), []);
  assert.throws(() => selectAddons(['*,-nope']), new RegExp(`unknown add-on "-nope"; known: ${addonNames.join(', ')}`));
  assert.throws(() => selectAddons(['__proto__']), /unknown add-on/);
});

test('an add-on acts as the ServiceAccount kube-system/<name>-controller', () => {
  const id = addonIdentity('sandbox');
  assert.equal(id.user.username, 'system:serviceaccount:kube-system:sandbox-controller');
  assert.deepEqual(id.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:kube-system', 'system:authenticated']);
});

const manifest = (description: string) => `---
# a comment
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: ${description}
        properties:
          spec: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;

test('CRDs are created, left alone when their manifest is unchanged, updated when it changed, and awaited until Established', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-addon-'));
  const file = join(dir, 'widgets.yaml');
  writeFileSync(file, manifest('first'));
  const store = new SqliteStore({ path: ':memory:' });
  const log = createLogger('silent');
  const reg = new Registry(store, allResources, new ScaledClock(1), log);
  bootstrap(reg);
  const ext = startApiExtensions(reg, reg.clock, log);
  const client = clientFor(reg);
  try {
    await client.resource(crdRef)?.load?.();
    const [first] = await readCrdManifests([file]);
    assert.equal(first.crd.metadata.name, 'widgets.example.com');
    const name = await applyCrd(client, 'demo', first.crd, first.hash);
    await waitEstablished(client, [name]);
    assert.ok(client.resource('example.com/v1/widgets'), 'served once Established');
    const created = client.get(crdRef, '', name)!;
    assert.equal(created.metadata.labels?.['bonsai.dev/addon'], 'demo');
    assert.equal(created.metadata.annotations?.[manifestHashAnnotation], first.hash);

    await applyCrd(client, 'demo', first.crd, first.hash);
    assert.equal(client.get(crdRef, '', name)!.metadata.resourceVersion, created.metadata.resourceVersion, 'no write for the same manifest');

    writeFileSync(file, manifest('second'));
    const [second] = await readCrdManifests([file]);
    assert.notEqual(second.hash, first.hash);
    await applyCrd(client, 'demo', second.crd, second.hash);
    const updated = client.get(crdRef, '', name)!;
    assert.equal(updated.metadata.generation, 2);
    assert.equal(updated.metadata.annotations?.[manifestHashAnnotation], second.hash);
    await waitEstablished(client, [name]);

    // installCrdFiles: nothing written (nor parsed) while the stored CRD carries the file's hash.
    const rv = client.get(crdRef, '', name)!.metadata.resourceVersion;
    assert.deepEqual(await installCrdFiles(client, 'demo', [file]), [name]);
    assert.equal(client.get(crdRef, '', name)!.metadata.resourceVersion, rv);
    writeFileSync(file, manifest('third'));
    assert.deepEqual(await installCrdFiles(client, 'demo', [file]), [name]);
    assert.equal(client.get(crdRef, '', name)!.metadata.generation, 3);

    const abort = new AbortController();
    const never = waitEstablished(client, ['missing.example.com'], abort.signal);
    abort.abort();
    await assert.rejects(never, /stopped/);
  } finally {
    ext.stop();
    await client.pendingCommit();
    store.close();
  }
});

test('the CRD names a file declares are found without parsing it', () => {
  assert.deepEqual(declaredNames(manifest('x')), ['widgets.example.com']);
  assert.deepEqual(declaredNames('---\nmetadata:\n  annotations:\n    a: b\n  name: one.example.com\nspec:\n  names:\n    name: no\n---\nmetadata:\n  name: two.example.com\n'), ['one.example.com', 'two.example.com']);
});

test('a file that is not a CRD is refused', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bonsai-addon-'));
  const file = join(dir, 'bad.yaml');
  writeFileSync(file, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
  await assert.rejects(readCrdManifests([file]), /not a CustomResourceDefinition/);
});
