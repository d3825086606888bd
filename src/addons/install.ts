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
import { runWorkerTask } from '../util/worker-task.js';
import { yaml } from '../util/yaml.js';

export const crdRef = 'apiextensions.k8s.io/v1/customresourcedefinitions';
/** The annotation holding the hash of the manifest a CRD was installed from. */
export const manifestHashAnnotation = 'bonsai.dev/addon-manifest-hash';
/** The label naming the add-on that installed a CRD. */
export const addonLabel = 'bonsai.dev/addon';

/** How long an add-on waits for its CRDs to become Established before giving up (clock-independent, real ms). */
const establishTimeoutMs = 30_000;

export interface CrdFile {
  path: string;
  text: string;
  /** sha256 of the file's text (32 hex digits): what the installed CRDs' annotation records. */
  hash: string;
}

/**
 * Mixed into every manifest's hash: bumped when what applyCrd installs changes for the same file, so that CRDs
 * installed before are updated once (2: conversion webhooks replaced by None, see installedForm).
 */
const installRevision = '2';

export async function readCrdFile(file: string): Promise<CrdFile> {
  const path = isAbsolute(file) ? file : join(projectRoot, file);
  const text = await readFile(path, 'utf8');
  return { path: file, text, hash: createHash('sha256').update(`${installRevision}\u0000${text}`).digest('hex').slice(0, 32) };
}

/**
 * The CRD as an add-on installs it. An add-on runs its operator's controllers, not the operator's webhook server, so
 * a CRD converting by webhook (agent-sandbox's) would name a Service nothing serves and every read in another version
 * would fail: it is installed with conversion None (the versions share one stored form, relabelled on read).
 */
function installedForm(crd: KObject): KObject {
  const spec = isRecord(crd.spec) ? crd.spec : undefined;
  if (!spec || !isRecord(spec.conversion) || spec.conversion.strategy !== 'Webhook') return crd;
  return { ...crd, spec: { ...spec, conversion: { strategy: 'None' } } };
}

/** The CRD names a controller-gen style file declares (top-level `metadata:` then an indented `name:`), unparsed. */
export function declaredNames(text: string): string[] {
  return [...text.matchAll(/^metadata:\r?\n(?:[ ]{2}.*\r?\n)*?[ ]{2}name: *([a-z0-9.-]+) *\r?$/gm)].map((m) => m[1]);
}

/** Parses YAML in a worker thread (inline when a worker cannot start). */
function parseYaml(text: string): Promise<unknown[]> {
  return runWorkerTask('addons/parse-worker.js', { text }, () => yaml().parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: 100 }) as unknown));
}

/** Parsed files by path and hash (tests start many servers in one process); bounded. */
const parsed = new Map<string, KObject[]>();
const maxParsed = 64;

/** The CRDs of one file. */
export async function parseCrdFile(f: CrdFile): Promise<KObject[]> {
  const key = `${f.path}\u0000${f.hash}`;
  const hit = parsed.get(key);
  if (hit) return hit.map((c) => structuredClone(c));
  const crds: KObject[] = [];
  for (const obj of await parseYaml(f.text)) {
    if (obj === null || obj === undefined) continue;
    if (!isRecord(obj) || obj.kind !== 'CustomResourceDefinition' || !isRecord(obj.metadata) || typeof obj.metadata.name !== 'string') {
      throw new Error(`${f.path}: not a CustomResourceDefinition`);
    }
    if (depthOf(obj) > maxYamlDepth) throw new Error(`${f.path}: nested too deeply`);
    crds.push(obj as KObject);
  }
  if (parsed.size >= maxParsed) parsed.clear();
  parsed.set(key, crds);
  return crds.map((c) => structuredClone(c));
}

/** The CRD documents of the files (paths relative to the project root), each with the hash of its file. */
export async function readCrdManifests(files: readonly string[]): Promise<Array<{ crd: KObject; hash: string }>> {
  const out: Array<{ crd: KObject; hash: string }> = [];
  for (const file of files) {
    const f = await readCrdFile(file);
    for (const crd of await parseCrdFile(f)) out.push({ crd, hash: f.hash });
  }
  return out;
}

/**
 * Installs the CRDs of the files; returns their names. A file whose CRDs are all stored with its hash is not even
 * parsed (a restart with the same files costs a file read and a hash).
 */
export async function installCrdFiles(client: Client, addon: string, files: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const names: string[] = [];
  for (const file of files) {
    const f = await readCrdFile(file);
    if (signal?.aborted) return names;
    const declared = declaredNames(f.text);
    if (declared.length && declared.every((n) => client.get(crdRef, '', n)?.metadata.annotations?.[manifestHashAnnotation] === f.hash)) {
      names.push(...declared);
      continue;
    }
    const crds = await parseCrdFile(f);
    if (signal?.aborted) return names;
    for (const crd of crds) names.push(await applyCrd(client, addon, crd, f.hash));
  }
  return names;
}

function depthOf(v: unknown, depth = 0): number {
  if (depth > maxYamlDepth) return depth;
  if (Array.isArray(v)) return v.reduce<number>((m, x) => Math.max(m, depthOf(x, depth + 1)), depth);
  if (isRecord(v)) return Object.values(v).reduce<number>((m, x) => Math.max(m, depthOf(x, depth + 1)), depth);
  return depth;
}

/** Creates or updates one CRD; returns its name. Writes nothing when the stored one came from the same manifest. */
export async function applyCrd(client: Client, addon: string, crd: KObject, hash: string): Promise<string> {
  const name = crd.metadata.name ?? '';
  const labels = { ...(crd.metadata.labels ?? {}), [addonLabel]: addon };
  const annotations = { ...(crd.metadata.annotations ?? {}), [manifestHashAnnotation]: hash };
  const desired: KObject = { ...installedForm(crd), metadata: { ...crd.metadata, labels, annotations } };
  const current = client.get(crdRef, '', name);
  if (!current) {
    await client.create(crdRef, '', desired);
    return name;
  }
  if (current.metadata.annotations?.[manifestHashAnnotation] === hash) return name;
  await client.guaranteedUpdate(crdRef, '', name, (cur) => ({
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
