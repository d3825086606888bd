// What the add-on lessons share: each runs in its own namespace `lesson-<name>` and, starting over, removes only the
// objects labelled `bonsai.dev/lesson: <name>` (never a learner's); an add-on's API is waited for (its CRDs install
// after the server listens) and its absence said plainly.
import type { Json, LessonApi } from './lesson-api.js';
import type { LessonContext } from './lesson-types.js';
import { ensureLessonNamespace, lessonLabel, lessonNamespace, lessonSelector, ownedBy, removeLessonObjects } from './lesson-namespace.js';

import { isDeleting, nameOf, removeAndWait } from './lesson-objects.js';

export { lessonLabel, lessonNamespace } from './lesson-namespace.js';

/** The intro's last line in every lesson. */
export const secondTerminal = 'Keep a second terminal open for kubectl; Ctrl-C here ends the lesson (the objects stay).';

/** Metadata for an object of lesson `lesson`: in its namespace (unless cluster-scoped), labelled as the lesson's. */
export function lessonMeta(lesson: string, name: string, labels: Record<string, string> = {}, clusterScoped = false): Json {
  return { name, ...(clusterScoped ? {} : { namespace: lessonNamespace(lesson) }), labels: { ...labels, [lessonLabel]: lesson } };
}

async function sleep(ms: number): Promise<void> {
  await new Promise((r) => setTimeout(r, ms));
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
  if (!ownedBy(o, lesson)) throw new Error(`${path} exists and is not the lesson's (no ${lessonLabel}=${lesson} label): the lesson leaves it alone; delete or rename it and run the lesson again`);
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
export async function startOver(ctx: LessonContext, lesson: string, addon: string, addonPath: string, collections: readonly string[]): Promise<void> {
  const { api } = ctx;
  await waitForAddon(api, addonPath, addon);
  const ns = await ensureLessonNamespace(ctx, lesson);
  await removeLessonObjects(api, lesson, [...collections]);
  await waitGone(api, `/api/v1/namespaces/${ns}/pods?${lessonSelector(lesson)}`, 'the earlier run\'s pods');
}
