// What the add-on lessons share: each runs in its own namespace `lesson-<name>` and, starting over, removes only the
// objects labelled `bonsai.dev/lesson: <name>` (never a learner's); an add-on's API is waited for (its CRDs install
// after the server listens) and its absence said plainly.
import type { Json, LessonApi } from './lesson-api.js';
import { isDeleting, labelsOf, nameOf, removeAndWait } from './lesson-objects.js';

export const lessonLabel = 'bonsai.dev/lesson';

/** The intro's last line in every lesson. */
export const secondTerminal = 'Keep a second terminal open for kubectl; Ctrl-C here ends the lesson (the objects stay).';

export function lessonNamespace(name: string): string {
  return `lesson-${name}`;
}

/** The label selector of a lesson's own objects, for a list path's query string. */
export function lessonSelector(name: string): string {
  return `labelSelector=${encodeURIComponent(`${lessonLabel}=${name}`)}`;
}

/** Metadata for an object of lesson `lesson`: in its namespace (unless cluster-scoped), labelled as the lesson's. */
export function lessonMeta(lesson: string, name: string, labels: Record<string, string> = {}, clusterScoped = false): Json {
  return { name, ...(clusterScoped ? {} : { namespace: lessonNamespace(lesson) }), labels: { ...labels, [lessonLabel]: lesson } };
}

function isLessons(o: Json, lesson: string): boolean {
  return labelsOf(o)[lessonLabel] === lesson;
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
}

/** Creates the lesson's namespace (waiting out one still being deleted); a namespace already there is kept. */
export async function ensureLessonNamespace(api: LessonApi, lesson: string, timeoutMs = 60_000): Promise<string> {
  const ns = lessonNamespace(lesson);
  const path = `/api/v1/namespaces/${ns}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const existing = await api.get(path);
    if (existing && !isDeleting(existing)) return ns;
    if (!existing) {
      await api.create('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns, labels: { [lessonLabel]: lesson } } });
      return ns;
    }
    if (Date.now() > deadline) throw new Error(`namespace ${ns} is still being deleted; run the lesson again once it is gone`);
    await sleep(250);
  }
}

/**
 * Deletes the lesson's own objects in `collectionPath` (a namespaced or cluster-wide list path) and waits until they
 * are gone; objects without the lesson's label stay.
 */
export async function removeLessonObjects(api: LessonApi, collectionPath: string, lesson: string, opts?: { gracePeriodSeconds?: number }): Promise<void> {
  for (const o of await api.list(`${collectionPath}?${lessonSelector(lesson)}`)) {
    await removeAndWait(api, `${collectionPath}/${encodeURIComponent(nameOf(o))}`, 60_000, opts);
  }
}

/** Waits until the list at `listPath` (with its selector) is empty, e.g. the pods of objects deleted in the background. */
export async function waitGone(api: LessonApi, listPath: string, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await api.list(listPath)).length) {
    if (Date.now() > deadline) throw new Error(`${what} are still there after ${Math.round(timeoutMs / 1000)} s; delete them and run the lesson again`);
    await sleep(250);
  }
}

/**
 * Refuses to go on when `path` holds an object the lesson did not make (a learner's, which it would otherwise
 * replace); the lesson's own earlier one is removed.
 */
export async function claimName(api: LessonApi, path: string, lesson: string): Promise<void> {
  const o = await api.get(path);
  if (!o) return;
  if (!isLessons(o, lesson)) throw new Error(`${path} exists and is not the lesson's (no ${lessonLabel}=${lesson} label): the lesson leaves it alone; delete or rename it and run the lesson again`);
  await removeAndWait(api, path);
}

/**
 * Waits until `listPath` answers (an add-on's CRDs are installed a few seconds after the server starts); a server
 * without the add-on gets a plain message naming it.
 */
export async function waitForAddon(api: LessonApi, listPath: string, addon: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await api.list(listPath);
      return;
    } catch (e) {
      if (Date.now() > deadline) throw new Error(`the ${addon} add-on does not answer (${e instanceof Error ? e.message : String(e)}): start the server with it (the default, or --addons ${addon})`);
    }
    await sleep(500);
  }
}

/** The lesson's live (not deleting) pods with label app=`app`. */
export async function livePods(api: LessonApi, lesson: string, app: string): Promise<Json[]> {
  const pods = await api.list(`/api/v1/namespaces/${lessonNamespace(lesson)}/pods?labelSelector=${encodeURIComponent(`app=${app}`)}`);
  return pods.filter((p) => !isDeleting(p)).sort((a, b) => nameOf(a).localeCompare(nameOf(b)));
}

/**
 * Starts a lesson over: waits for its add-on's API (`addonPath`, a list path), makes its namespace, removes its own
 * objects in each of `collections` (in order) and waits for their pods to go.
 */
export async function startOver(api: LessonApi, lesson: string, addon: string, addonPath: string, collections: readonly string[]): Promise<void> {
  await waitForAddon(api, addonPath, addon);
  const ns = await ensureLessonNamespace(api, lesson);
  for (const c of collections) await removeLessonObjects(api, c, lesson);
  await waitGone(api, `/api/v1/namespaces/${ns}/pods?${lessonSelector(lesson)}`, 'the earlier run\'s pods');
}
