// apiextensions.k8s.io/v1 CustomResourceDefinition: defaults, validation (with the schema and CEL checks of each
// version), the status the server keeps, and the finalizer that removes a deleted CRD's objects first.
import type { ResourceDef } from '../registry/resource.js';
import type { KObject } from '../machinery/types.js';
import { defaultCrd, prepareCrdForCreate, prepareCrdForUpdate } from './crd-defaults.js';
import { validateCrd, validateCrdStatus } from './crd-validation.js';
import { customResourceDefinitionTable } from './crd-table.js';
import { checkCrdSchema, checkCrdSchemasAhead, loadEngines } from './engines.js';
import { cleanupFinalizer } from './crd-types.js';
import { afterPoll } from '../util/next-turn.js';

export const customResourceDefinitions: ResourceDef = {
  group: 'apiextensions.k8s.io', version: 'v1', kind: 'CustomResourceDefinition', plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'],
  subresources: ['status'], generation: true, deleteFinalizers: [cleanupFinalizer],
  emptyStatus: { acceptedNames: { kind: '', plural: '' } },
  load: loadEngines,
  defaults: defaultCrd,
  prepareCreate: (crd) => prepareCrdForCreate(crd),
  prepareUpdate: prepareCrdForUpdate,
  // The schemas (structure, defaults, CEL rules: the costly part) are checked when the spec changes, as its
  // generation tells; a status write or a metadata change leaves them as they were accepted.
  validate: (crd, old) => validateCrd(crd, old, { checkSchema: checksSchemas(crd, old) ? checkCrdSchema : undefined }),
  validateStatus: validateCrdStatus,
  // Those checks are worked out first, in turns of their own: which there are (a validation without them, tens of
  // ms for a large CRD: it compares the versions' schemas), then each schema's structure and its rules.
  prevalidate: (crd, old) => (checksSchemas(crd, old) ? afterPoll().then(() => checkCrdSchemasAhead(schemaChecksOf(crd, old))) : undefined),
  table: customResourceDefinitionTable,
};

function checksSchemas(crd: KObject, old: KObject | undefined): boolean {
  return !old || old.metadata.generation !== crd.metadata.generation;
}

/** The schema checks validateCrd asks for, in its order (found by a validation that checks no schema). */
function schemaChecksOf(crd: KObject, old: KObject | undefined): Array<[unknown, string]> {
  const checks: Array<[unknown, string]> = [];
  validateCrd(crd, old, { checkSchema: (schema, path) => (checks.push([schema, path]), []) });
  return checks;
}
