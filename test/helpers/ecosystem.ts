// Real projects' install manifests (test/fixtures/ecosystem/<project>/, provenance in SOURCE.md) applied with the
// real kubectl as their docs say: which objects a file holds, what `kubectl apply` said of each, and every object's
// state (a re-apply that changes nothing must write nothing, as upstream's writes nothing).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { projectRoot } from './server.js';
import type { Kubectl } from './kubectl.js';

type Json = Record<string, any>;

export const ecosystemDir = join(projectRoot, 'test', 'fixtures', 'ecosystem');

/** The path of a project's fixture, e.g. `fixture('kueue', 'manifests.yaml')`. */
export const fixture = (project: string, file: string): string => join(ecosystemDir, project, file);

/** The objects a manifest file holds (empty documents left out, as kubectl leaves them out). */
export function manifestObjects(path: string): Json[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((d) => d.toJS() as Json | null).filter((o): o is Json => !!o && typeof o === 'object' && !!o.kind);
}

/** `kind.group/name` as `kubectl apply` prints an object (the group left out for the core group). */
export function appliedName(o: Json): string {
  const group = String(o.apiVersion).includes('/') ? `.${String(o.apiVersion).split('/')[0]}` : '';
  return `${String(o.kind).toLowerCase()}${group}/${o.metadata.name}`;
}

/** The verb `kubectl apply` printed for each object (`created`, `unchanged`, `serverside-applied`, ...). */
export function applyVerbs(out: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const line of out.trim().split('\n')) {
    const at = line.lastIndexOf(' ');
    if (at > 0) m.set(line.slice(0, at), line.slice(at + 1));
  }
  return m;
}

/** Asserts that the apply printed `verb` once for every object in the file (and for nothing else). */
export function assertEveryObject(path: string, out: string, verb: RegExp, allow: (name: string, verb: string) => boolean = () => false): void {
  const want = manifestObjects(path).map(appliedName);
  const got = applyVerbs(out);
  assert.deepEqual([...got.keys()].sort(), [...new Set(want)].sort(), `objects of ${path}`);
  const off = [...got].filter(([name, v]) => !verb.test(v) && !allow(name, v));
  assert.deepEqual(off, [], `verbs of ${path}`);
}

/**
 * `Kind namespace/name` → the object as served now, less what controllers write in the meantime (status, its
 * managedFields entries, and the resourceVersion those writes move): what an apply would have to change to write.
 */
export async function applyableState(k: Kubectl, path: string): Promise<Map<string, string>> {
  const got = JSON.parse(await k.ok(['get', '-f', path, '-o', 'json'])) as Json;
  const items: Json[] = got.kind === 'List' ? got.items : [got];
  return new Map(items.map((o) => {
    const { status: _status, ...rest } = o;
    const { resourceVersion: _rv, managedFields, ...meta } = o.metadata as Json;
    const managers = ((managedFields ?? []) as Json[]).filter((e) => e.subresource !== 'status');
    return [`${o.kind} ${meta.namespace ?? ''}/${meta.name}`, JSON.stringify({ ...rest, metadata: { ...meta, managedFields: managers } })];
  }));
}

/**
 * Re-applies the file as its docs say (server-side or client-side) and asserts that no object was written (no
 * managedFields time, spec or metadata moved). kubectl prints `serverside-applied` for every object of a server-side apply, changed or not;
 * a client-side one must print `unchanged` except where `allow` says upstream's kubectl prints otherwise too.
 */
export async function assertReapplyWritesNothing(k: Kubectl, path: string, serverSide: boolean, allow?: (name: string, verb: string) => boolean): Promise<void> {
  const before = await applyableState(k, path);
  assert.equal(before.size, new Set(manifestObjects(path).map(appliedName)).size);
  const out = await k.ok(serverSide ? ['apply', '--server-side', '-f', path] : ['apply', '-f', path]);
  assertEveryObject(path, out, serverSide ? /^serverside-applied$/ : /^unchanged$/, allow);
  const after = await applyableState(k, path);
  const moved = [...after].filter(([key, state]) => before.get(key) !== state).map(([key]) => key);
  assert.deepEqual(moved, [], `objects of ${path} written by a re-apply that changes nothing`);
}

/** The cluster is still usable after an install: a Namespace, a Deployment rolled out, a Job completed, a Pod Ready. */
export async function assertOrdinaryWorkloads(k: Kubectl, ns: string): Promise<void> {
  await k.ok(['create', 'namespace', ns]);
  await k.ok(['create', 'deployment', 'web', '-n', ns, '--image=nginx:1.27']);
  await k.ok(['create', 'job', 'once', '-n', ns, '--image=busybox:1.36', '--', 'true']);
  await k.ok(['run', 'solo', '-n', ns, '--image=busybox:1.36', '--restart=Never', '--', 'sleep', '3600']);
  await k.ok(['rollout', 'status', 'deployment/web', '-n', ns, '--timeout=120s']);
  await k.ok(['wait', '--for=condition=Complete', 'job/once', '-n', ns, '--timeout=120s']);
  await k.ok(['wait', '--for=condition=Ready', 'pod/solo', '-n', ns, '--timeout=120s']);
}
