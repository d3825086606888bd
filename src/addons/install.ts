// Installs an add-on's CustomResourceDefinitions as a platform team would apply them: each YAML file is read from
// the project root, created when missing, updated when its file changed since it was installed (a hash in an
// annotation tells, so a restart with the same files writes nothing), then awaited until Established.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import { isRecord } from '../machinery/types.js';
import { maxYamlDepth } from '../machinery/depth-limits.js';
import { projectRoot } from '../util/paths.js';
import { yaml } from '../util/yaml.js';

export const crdRef = 'apiextensions.k8s.io/v1/customresourcedefinitions';
/** The annotation holding the hash of the manifest a CRD was installed from. */
export const manifestHashAnnotation = 'bonsai.dev/addon-manifest-hash';
/** The label naming the add-on that installed a CRD. */
export const addonLabel = 'bonsai.dev/addon';

/** How long an add-on waits for its CRDs to become Established before giving up (clock-independent, real ms). */
const establishTimeoutMs = 30_000;
/** At most this many documents in one CRD file (a bound on hostile or broken files). */
const maxDocuments = 64;

/** The CRD documents of the files (paths relative to the project root), each with the hash of its own text. */
export async function readCrdManifests(files: readonly string[]): Promise<Array<{ crd: KObject; hash: string }>> {
  const out: Array<{ crd: KObject; hash: string }> = [];
  for (const file of files) {
    const text = await readFile(isAbsolute(file) ? file : join(projectRoot, file), 'utf8');
    const docs = yaml().parseAllDocuments(text);
    if (docs.length > maxDocuments) throw new Error(`${file}: more than ${maxDocuments} documents`);
    for (const doc of docs) {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
      const obj: unknown = doc.toJS({ maxAliasCount: 100 });
      if (obj === null || obj === undefined) continue;
      if (!isRecord(obj) || obj.kind !== 'CustomResourceDefinition' || !isRecord(obj.metadata) || typeof obj.metadata.name !== 'string') {
        throw new Error(`${file}: not a CustomResourceDefinition`);
      }
      if (depthOf(obj) > maxYamlDepth) throw new Error(`${file}: nested too deeply`);
      out.push({ crd: obj as unknown as KObject, hash: createHash('sha256').update(JSON.stringify(obj)).digest('hex').slice(0, 32) });
    }
  }
  return out;
}

function depthOf(v: unknown, depth = 0): number {
  if (depth > maxYamlDepth) return depth;
  if (Array.isArray(v)) return v.reduce<number>((m, x) => Math.max(m, depthOf(x, depth + 1)), depth);
  if (isRecord(v)) return Object.values(v).reduce<number>((m, x) => Math.max(m, depthOf(x, depth + 1)), depth);
  return depth;
}

/** Creates or updates one CRD; returns its name. Writes nothing when the stored one came from the same manifest. */
export function applyCrd(client: Client, addon: string, crd: KObject, hash: string): string {
  const name = crd.metadata.name ?? '';
  const labels = { ...(crd.metadata.labels ?? {}), [addonLabel]: addon };
  const annotations = { ...(crd.metadata.annotations ?? {}), [manifestHashAnnotation]: hash };
  const desired: KObject = { ...crd, metadata: { ...crd.metadata, labels, annotations } };
  const current = client.get(crdRef, '', name);
  if (!current) {
    client.create(crdRef, '', desired);
    return name;
  }
  if (current.metadata.annotations?.[manifestHashAnnotation] === hash) return name;
  client.guaranteedUpdate(crdRef, '', name, (cur) => ({
    ...cur,
    metadata: { ...cur.metadata, labels: { ...(cur.metadata.labels ?? {}), [addonLabel]: addon }, annotations: { ...(cur.metadata.annotations ?? {}), [manifestHashAnnotation]: hash } },
    spec: desired.spec,
  }));
  return name;
}

const established = (crd: KObject | undefined): boolean => {
  const conds = isRecord(crd?.status) ? crd.status.conditions : undefined;
  return Array.isArray(conds) && conds.some((c) => isRecord(c) && c.type === 'Established' && c.status === 'True');
};

/**
 * Resolves once every named CRD is Established (watching the CRDs), rejects after the timeout or when `signal`
 * aborts.
 */
export function waitEstablished(client: Client, names: readonly string[], signal?: AbortSignal): Promise<void> {
  const pending = new Set(names.filter((n) => !established(client.get(crdRef, '', n))));
  if (!pending.size) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const finish = (err?: Error) => {
      unwatch();
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolve();
    };
    const onAbort = () => finish(new Error('stopped'));
    const unwatch = client.watch(crdRef, (c) => {
      const name = c.object.metadata.name ?? '';
      if (pending.has(name) && c.type !== 'DELETED' && established(c.object)) pending.delete(name);
      if (!pending.size) finish();
    });
    const timer = setTimeout(() => finish(new Error(`CRDs not Established after ${establishTimeoutMs / 1000}s: ${[...pending].join(', ')}`)), establishTimeoutMs);
    timer.unref();
    signal?.addEventListener('abort', onAbort);
    // Established between the first look and the watch.
    for (const n of [...pending]) if (established(client.get(crdRef, '', n))) pending.delete(n);
    if (!pending.size) finish();
  });
}
