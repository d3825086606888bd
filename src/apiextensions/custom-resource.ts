// A CustomResourceDefinition turned into the declaration every served resource makes: the one place custom resources
// differ from built-in ones. Schemas compile on first use (the def's `load`), once per CRD generation.
import { ApiError, type FieldError } from '../machinery/errors.js';
import type { KObject } from '../machinery/types.js';
import type { ResourceDef, Subresource } from '../registry/resource.js';
import { crdTablePrinter } from './printer-columns.js';
import { crdFieldSelectors } from './selectable-fields.js';
import { applyScale, scaleOf, scalePathsOf, validateScaleFields } from './scale.js';
import { compileVersion, compileVersionSync, enginesLoaded, type CompiledVersion } from './engines.js';
import { storageVersionOf, type Crd, type CrdVersion } from './crd-types.js';
import { compareKubeVersions } from '../machinery/version-priority.js';

const schemaOf = (v: CrdVersion): Record<string, unknown> => v.schema?.openAPIV3Schema ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };

/** What a CRD's versions compile to; shared by the def's hooks, filled in by `load`. */
class CompiledCrd {
  private readonly byVersion = new Map<string, CompiledVersion>();
  private ready: Promise<void> | undefined;

  constructor(private readonly crd: Crd, private readonly textOf: (obj: KObject) => string | undefined) {}

  load(): Promise<void> {
    this.ready ??= (async () => {
      for (const v of this.crd.spec.versions) {
        if (!v.served && !v.storage) continue;
        if (!this.byVersion.has(v.name)) this.byVersion.set(v.name, await compileVersion(schemaOf(v)));
      }
    })();
    return this.ready;
  }

  private readonly readDefaults = new WeakMap<KObject, KObject>();

  /**
   * A stored object with the defaults the schema has now (an object written before a default was added lacks it), as
   * upstream defaults what it decodes from storage. Each stored state is looked at once; unchanged ones are served as
   * they are (and so keep their stored JSON text).
   */
  onRead(obj: KObject, version: string): KObject {
    const hit = this.readDefaults.get(obj);
    if (hit) return hit;
    const compiled = this.byVersion.get(version);
    if (!compiled) return obj; // not compiled yet (after a restart, before the first write): served as stored
    const copy = structuredClone(obj);
    compiled.defaults(copy);
    const out = JSON.stringify(copy) === (this.textOf(obj) ?? JSON.stringify(obj)) ? obj : copy;
    this.readDefaults.set(obj, out);
    return out;
  }

  /** The compiled version; compiled here when no one awaited `load` (an in-process write) and the engines are loaded. */
  version(name: string): CompiledVersion {
    let c = this.byVersion.get(name);
    if (c) return c;
    const v = this.crd.spec.versions.find((x) => x.name === name);
    if (!v || !enginesLoaded()) throw new ApiError(503, 'ServiceUnavailable', `the schema of ${this.crd.metadata.name ?? ''} is not loaded yet`);
    c = compileVersionSync(schemaOf(v));
    this.byVersion.set(name, c);
    return c;
  }
}

export interface CustomResourceOptions {
  terminating?: boolean;
  /** The stored JSON text of an object when the storage holds it in memory (Registry.pendingText): spares a stringify. */
  textOf?: (obj: KObject) => string | undefined;
}

/** The resource a CRD defines, served from its storage version (one stored form; conversion None relabels, Webhook calls it). */
export function customResourceDef(crd: Crd, opts: CustomResourceOptions = {}): ResourceDef {
  const { group, names, scope } = crd.spec;
  const storage = storageVersionOf(crd) ?? crd.spec.versions[0];
  const served = crd.spec.versions.filter((v) => v.served).map((v) => v.name).sort(compareKubeVersions);
  const compiled = new CompiledCrd(crd, opts.textOf ?? (() => undefined));
  const subresources: Subresource[] = [];
  if (storage.subresources?.status) subresources.push('status');
  const scalePaths = storage.subresources?.scale ? scalePathsOf(storage.subresources.scale) : undefined;
  if (scalePaths) subresources.push('scale');
  const storageVersion = storage.name;
  // Each served version shows its own printer columns (upstream's table convertor per version).
  const printers = new Map(served.map((v) => [v, crdTablePrinter(crd, v)]));
  const schemaVersion = (v: string | undefined) => (v && crd.spec.versions.some((x) => x.name === v) ? v : storageVersion);
  const def: ResourceDef = {
    group,
    version: storageVersion,
    versions: served.length ? served : [storageVersion],
    kind: names.kind,
    plural: names.plural,
    singular: names.singular || names.kind.toLowerCase(),
    namespaced: scope === 'Namespaced',
    shortNames: names.shortNames,
    categories: names.categories,
    subresources,
    generation: true,
    noStrategicMerge: true,
    load: () => compiled.load(),
    // Defaults and validation follow the schema of the version the request was made in (conversion None: one stored form).
    defaults: (obj, version) => compiled.version(schemaVersion(version)).defaults(obj),
    onRead: (obj) => compiled.onRead(obj, storageVersion),
    validate: (obj: KObject, old: KObject | undefined, version?: string): FieldError[] => {
      const errs = compiled.version(schemaVersion(version)).validate(obj, old);
      return scalePaths ? [...errs, ...validateScaleFields(obj, scalePaths)] : errs;
    },
    checkFields: (obj, version, prune) => {
      if (prune) return { unknownFields: compiled.version(version).prune(obj), typeErrors: [] };
      // Server-side apply: fields the schema does not declare make the apply configuration fail, as upstream's typed
      // conversion does (apply bodies are YAML, at most a few hundred levels deep, so the copy is safe).
      const unknown = compiled.version(version).prune(structuredClone(obj));
      return { unknownFields: [], typeErrors: unknown.map((p) => `.${p}: field not declared in schema`) };
    },
    table: crdTablePrinter(crd, storageVersion),
    tableOf: (v) => printers.get(v),
    fieldSelectors: crdFieldSelectors(crd, storageVersion, scope === 'Namespaced'),
  };
  const conversion = crd.spec.conversion;
  if (conversion?.strategy === 'Webhook' && conversion.webhook) {
    const reviewVersions = Array.isArray(conversion.webhook.conversionReviewVersions) ? conversion.webhook.conversionReviewVersions.filter((v): v is string => typeof v === 'string') : [];
    def.conversionWebhook = { clientConfig: conversion.webhook.clientConfig, conversionReviewVersions: reviewVersions };
  }
  if (scalePaths) def.scale = { get: (obj) => scaleOf(obj, scalePaths), set: (obj, replicas) => applyScale(obj, replicas, scalePaths) };
  if (opts.terminating) {
    def.prepareCreate = () => {
      throw new ApiError(405, 'MethodNotAllowed', 'create not allowed while custom resource definition is terminating');
    };
  }
  return def;
}
