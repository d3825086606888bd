// The build's compact schemas (scripts/gen-openapi-schemas.mjs): what the write pipeline walks keeps every field
// and list rule of the full document and drops only prose; the served documents stay whole.
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { schemaForKind, v3DocumentBytes } from '../../src/openapi/documents.js';
import { CustomOpenApiStore } from '../../src/openapi/custom-store.js';
import { projectRoot } from '../../src/util/paths.js';

it('kinds resolve from the compact schemas: fields named description stay, descriptions and paths go', () => {
  assert.ok(existsSync(join(projectRoot, 'dist', 'openapi-schemas', 'api__v1_openapi.json')), 'the build wrote the compact schemas');
  const pc = schemaForKind({ group: 'scheduling.k8s.io', version: 'v1', kind: 'PriorityClass' });
  assert.ok(pc);
  assert.deepEqual(Object.keys(pc.schema.properties ?? {}).sort(), ['apiVersion', 'description', 'globalDefault', 'kind', 'metadata', 'preemptionPolicy', 'value']);
  assert.equal(pc.schema.description, undefined);
  assert.deepEqual(pc.doc.paths, {});
  const pod = schemaForKind({ group: '', version: 'v1', kind: 'Pod' });
  const spec = pod?.doc.components?.schemas?.['io.k8s.api.core.v1.PodSpec'];
  assert.deepEqual(spec?.properties?.containers?.['x-kubernetes-list-map-keys'], ['name']);
  assert.equal(spec?.properties?.containers?.['x-kubernetes-patch-merge-key'], 'name');
  const served = JSON.parse(v3DocumentBytes(new CustomOpenApiStore(), 'api/v1')!.toString('utf8')) as { paths: object; components: { schemas: Record<string, { description?: string }> } };
  assert.ok(Object.keys(served.paths).length > 0);
  assert.match(served.components.schemas['io.k8s.api.core.v1.PodSpec'].description ?? '', /PodSpec is a description of a pod/);
});
