// The apiextensions part of the API server: CustomResourceDefinitions are served like any kind (see crd-resource.ts);
// this starts the loop that turns each one into a served resource, and keeps APIServices in step.
import { promised } from '../util/steps.js';
import type { Registry } from '../registry/registry.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { syncLocalAPIServices } from '../registry/resources/apiservices.js';
import { CrdController } from './crd-controller.js';
import { customOpenApiOf } from '../openapi/custom-store.js';
import { customResourceKey, storageVersionOf, type Crd } from './crd-types.js';
import { enginesLoaded, loadEngines, publishedSchemas } from './engines.js';

/** What the OpenAPI documents publish of a CRD (its versions' schemas, as kube-apiserver's builder takes them). */
function publication(crd: Crd) {
  const { group, names, scope } = crd.spec;
  const storage = storageVersionOf(crd);
  return {
    group, kind: names.kind, listKind: names.listKind ?? `${names.kind}List`, plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(), namespaced: scope === 'Namespaced', shortNames: names.shortNames,
    versions: crd.spec.versions.map((v) => ({ name: v.name, served: v.served, ...publishedSchemas(v.schema?.openAPIV3Schema, { group, version: v.name, kind: names.kind }) })),
    subresources: { status: storage?.subresources?.status, scale: storage?.subresources?.scale },
    preserveUnknownFields: crd.spec.preserveUnknownFields,
  };
}

export { customResourceDefinitions } from './crd-resource.js';

export function startApiExtensions(reg: Registry, clock: Clock, log: Logger): { stop(): void } {
  let pending = false;
  let stopped = false;
  // Several CRDs established in a row update the APIServices once (not after stop: the store may be closed by then).
  const stopSync = reg.onDefsChanged(() => {
    if (pending || stopped) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      if (stopped) return;
      promised(() => syncLocalAPIServices(reg)).catch((err: unknown) => log.warn({ err }, 'updating the APIServices failed'));
    });
  });
  const openapi = customOpenApiOf(reg);
  const controller = new CrdController(reg, clock, log, {
    served: (crd) => {
      const key = customResourceKey(crd.spec.group, crd.spec.names.plural);
      // Converted when a document is next read (after a restart, once the engines are there).
      const later = () => openapi.publishLater(key, () => (reg.defForKey(key) ? publication(crd) : undefined));
      if (enginesLoaded()) later();
      else void loadEngines().then(later, (err: unknown) => log.warn({ err }, 'the schema engines did not load'));
    },
    unserved: (key) => openapi.unpublish(key),
  });
  return {
    stop() {
      stopped = true;
      stopSync();
      controller.stop();
    },
  };
}
