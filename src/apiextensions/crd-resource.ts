// apiextensions.k8s.io/v1 CustomResourceDefinition: defaults, validation (with the schema and CEL checks of each
// version), the status the server keeps, and the finalizer that removes a deleted CRD's objects first.
import type { ResourceDef } from '../registry/resource.js';
import { defaultCrd, prepareCrdForCreate, prepareCrdForUpdate } from './crd-defaults.js';
import { validateCrd } from './crd-validation.js';
import { customResourceDefinitionTable } from './crd-table.js';
import { checkCrdSchema, loadEngines } from './engines.js';
import { cleanupFinalizer } from './crd-types.js';

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
  validate: (crd, old) => validateCrd(crd, old, { checkSchema: old && old.metadata.generation === crd.metadata.generation ? undefined : checkCrdSchema }),
  table: customResourceDefinitionTable,
};
