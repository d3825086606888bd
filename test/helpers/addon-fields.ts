// Fields a stored add-on object has that its CRD's storage version does not declare: what the add-on controllers wrote
// beyond their schema (objects from clients are pruned on the way in), which a user's next patch reports as unknown.
import assert from 'node:assert/strict';
import type { Client } from '../../src/client/client.js';

type Json = Record<string, any>;

/** Every object of every add-on CRD, with the unknown fields its storage version's schema finds in it. */
export function unknownFields(client: Client): string[] {
  const found: string[] = [];
  for (const crd of client.list<Json>('apiextensions.k8s.io/v1/customresourcedefinitions', '', { labelSelector: 'bonsai.dev/addon' })) {
    const version = (crd.spec.versions as Json[]).find((v) => v.storage)?.name as string;
    const ref = `${crd.spec.group}/${version}/${crd.spec.names.plural}`;
    const def = client.resource(ref);
    assert.ok(def?.checkFields, ref);
    for (const obj of client.list(ref)) {
      const { unknownFields: u } = def.checkFields(structuredClone(obj), version, true);
      for (const f of u) found.push(`${crd.spec.names.kind} ${obj.metadata.namespace}/${obj.metadata.name}: ${f}`);
    }
  }
  return found;
}
