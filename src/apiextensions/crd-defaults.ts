// What kube-apiserver fills in on CustomResourceDefinitions: the v1 defaulters (singular, listKind, conversion
// strategy, webhook service port, first storedVersion) and the strategy's create/update preparation.
import type { KObject } from '../machinery/types.js';
import { isRecord } from '../machinery/types.js';
import { deepEqual } from '../registry/validation/common.js';

type Json = Record<string, unknown>;
const rec = (v: unknown): Json => (isRecord(v) ? v : {});

/** SetObjectDefaults_CustomResourceDefinition, in place. */
export function defaultCrd(crd: KObject): void {
  if (!isRecord(crd.spec)) return;
  const spec = crd.spec;
  if (isRecord(spec.names)) {
    const names = spec.names;
    const kind = typeof names.kind === 'string' ? names.kind : '';
    if (typeof names.singular !== 'string' || names.singular === '') names.singular = kind.toLowerCase();
    if ((typeof names.listKind !== 'string' || names.listKind === '') && kind !== '') names.listKind = `${kind}List`;
  }
  if (!isRecord(spec.conversion)) spec.conversion = { strategy: 'None' };
  const service = rec(rec(rec(spec.conversion).webhook).clientConfig).service;
  if (isRecord(service) && typeof service.port !== 'number') service.port = 443;
  addStorageVersion(crd);
}

/** Appends the version marked storage to status.storedVersions when it is not there yet. */
function addStorageVersion(crd: KObject): void {
  const versions = Array.isArray(rec(crd.spec).versions) ? (rec(crd.spec).versions as unknown[]) : [];
  const storage = versions.map(rec).find((v) => v.storage === true);
  if (!storage || typeof storage.name !== 'string') return;
  const status = isRecord(crd.status) ? crd.status : (crd.status = {});
  const stored = Array.isArray(status.storedVersions) ? status.storedVersions : [];
  if (!stored.includes(storage.name)) status.storedVersions = [...stored, storage.name];
}

/** The strategy's PrepareForCreate: status is the server's (only the storage version is recorded), generation 1. */
export function prepareCrdForCreate(crd: KObject): void {
  crd.status = {};
  crd.metadata.generation = 1;
  addStorageVersion(crd);
}

/** PrepareForUpdate of the main resource: status is kept from `old`, generation bumps on spec changes. */
export function prepareCrdForUpdate(crd: KObject, old: KObject): void {
  crd.status = structuredClone(old.status ?? {});
  const oldGen = typeof old.metadata.generation === 'number' ? old.metadata.generation : 0;
  crd.metadata.generation = deepEqual(crd.spec, old.spec) ? oldGen : oldGen + 1;
  addStorageVersion(crd);
}
