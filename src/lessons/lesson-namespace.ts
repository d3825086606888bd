// Where a lesson's objects live and which are its own: each lesson runs in namespace `lesson-<name>`, labels what it
// creates `bonsai.dev/lesson: <name>`, removes only objects carrying that label, and stops rather than replace an
// object of the same name that a learner made.
import type { Json, LessonApi, RemoveOptions } from './lesson-api.js';
import { labelsOf, nameOf, rec, removeAndWait, str } from './lesson-objects.js';
import type { LessonContext } from './lesson-types.js';

export const lessonLabel = 'bonsai.dev/lesson';

export function lessonNamespace(name: string): string {
  return `lesson-${name}`;
}

/** `labelSelector=bonsai.dev/lesson=<name>`, for a list path's query. */
export function lessonSelector(name: string): string {
  return `labelSelector=${encodeURIComponent(`${lessonLabel}=${name}`)}`;
}

export function ownedBy(o: Json, lesson: string): boolean {
  return labelsOf(o)[lessonLabel] === lesson;
}

/** A lesson found an object it did not make where it wants to create its own. */
export class LessonConflictError extends Error {}

function conflict(what: string, lesson: string): LessonConflictError {
  return new LessonConflictError(
    `${what} exists and was not made by lesson ${lesson} (it has no label ${lessonLabel}=${lesson}); the lesson leaves it alone: ` +
    'delete or rename it yourself, then run the lesson again',
  );
}

const pollMs = 250;
const namespaceGoneTimeoutMs = 120_000;

/**
 * Makes the lesson's namespace (labelled as the lesson's) and says so; waits out a namespace of the lesson's still
 * being deleted. A namespace of that name that the learner made is used as it is (the lesson never deletes a
 * namespace; inside it, only objects carrying the lesson's label are ever removed).
 */
export async function ensureLessonNamespace(ctx: LessonContext, name: string): Promise<string> {
  const ns = lessonNamespace(name);
  const path = `/api/v1/namespaces/${ns}`;
  const deadline = Date.now() + namespaceGoneTimeoutMs;
  for (;;) {
    const existing = await ctx.api.get(path);
    if (existing && rec(existing.metadata).deletionTimestamp === undefined) return ns;
    if (!existing) {
      await ctx.api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { [lessonLabel]: name } } });
      ctx.say(`namespace/${ns} created`);
      return ns;
    }
    if (Date.now() > deadline) throw new Error(`namespace ${ns} is still being deleted; wait for it to go and run the lesson again`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/**
 * Deletes the objects labelled as the lesson's in each list path (e.g. `/apis/apps/v1/namespaces/lesson-x/deployments`)
 * and waits until they are gone; objects without the label stay.
 */
export async function removeLessonObjects(api: LessonApi, name: string, listPaths: string[], opts?: RemoveOptions): Promise<void> {
  for (const listPath of listPaths) {
    for (const o of await api.list(`${listPath}?${lessonSelector(name)}`)) {
      if (!ownedBy(o, name)) continue;
      await removeAndWait(api, `${listPath}/${encodeURIComponent(nameOf(o))}`, 60_000, opts);
    }
  }
}

export interface LessonObject {
  /** The list path the object is created under. */
  listPath: string;
  body: Json;
}

/** `deployment.apps/web`, as kubectl prints it. */
export function kindName(body: Json): string {
  const group = (str(body.apiVersion) ?? '').split('/');
  const kind = (str(body.kind) ?? 'object').toLowerCase();
  return `${kind}${group.length === 2 ? `.${group[0]}` : ''}/${nameOf(body)}`;
}

/** Stops the lesson if an object it is about to create is there without its label. */
export async function checkNoConflicts(api: LessonApi, name: string, objects: LessonObject[]): Promise<void> {
  for (const o of objects) {
    const existing = await api.get(`${o.listPath}/${encodeURIComponent(nameOf(o.body))}`);
    if (existing && !ownedBy(existing, name)) throw conflict(kindName(o.body), name);
  }
}

/** Adds the lesson's label to `body` (in place) and returns it. */
export function labelled(body: Json, name: string): Json {
  const metadata = rec(body.metadata);
  metadata.labels = { ...rec(metadata.labels), [lessonLabel]: name };
  body.metadata = metadata;
  return body;
}

/**
 * A lesson's setup: stops on a learner's object of the same name, removes what an earlier run left (the objects'
 * list paths and `alsoRemove`, with `opts`: at once and in the background by default), then creates the objects,
 * labelled, and says so.
 */
export async function resetLessonObjects(ctx: LessonContext, name: string, objects: LessonObject[], alsoRemove: string[] = [], opts: RemoveOptions = { gracePeriodSeconds: 0 }): Promise<void> {
  await checkNoConflicts(ctx.api, name, objects);
  const paths = [...new Set([...objects.map((o) => o.listPath), ...alsoRemove])];
  await removeLessonObjects(ctx.api, name, paths, opts);
  for (const o of objects) {
    await ctx.api.create(o.listPath, labelled(o.body, name));
    ctx.say(`${kindName(o.body)} created`);
  }
}
