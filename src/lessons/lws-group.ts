// Lesson `lws-group`: a LeaderWorkerSet (add-on lws) serves a model in groups of a leader and its workers; the
// learner deletes one worker and sees its whole group recreated (restartPolicy RecreateGroupOnPodRestart), the
// other group untouched, then scales the set by a group.
import type { Json, LessonApi } from './lesson-api.js';
import { labelsOf, nameOf, num, podReady, rec, str } from './lesson-objects.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';
import { claimName, lessonLabel, lessonMeta, lessonNamespace, secondTerminal, startOver } from './addon-lesson-helpers.js';

const lesson = 'lws-group';
const ns = lessonNamespace(lesson);
const setName = 'llm';
export const groupSize = 3;
const groups = 2;
const lwsPath = `/apis/leaderworkerset.x-k8s.io/v1/namespaces/${ns}/leaderworkersets`;
const podsPath = `/api/v1/namespaces/${ns}/pods?labelSelector=${encodeURIComponent(`leaderworkerset.sigs.k8s.io/name=${setName}`)}`;
const groupIndexLabel = 'leaderworkerset.sigs.k8s.io/group-index';

export function leaderWorkerSet(): Json {
  const template = (role: string) => ({
    metadata: { labels: { role, [lessonLabel]: lesson } },
    spec: { containers: [{ name: 'server', image: 'vllm/vllm-openai', resources: { requests: { cpu: '100m', memory: '128Mi' } } }] },
  });
  return {
    apiVersion: 'leaderworkerset.x-k8s.io/v1', kind: 'LeaderWorkerSet',
    metadata: lessonMeta(lesson, setName),
    spec: {
      replicas: groups,
      leaderWorkerTemplate: { size: groupSize, restartPolicy: 'RecreateGroupOnPodRestart', leaderTemplate: template('leader'), workerTemplate: template('worker') },
    },
  };
}

export function groupOf(pod: Json): string {
  return str(labelsOf(pod)[groupIndexLabel]) ?? '';
}

/** Every one of `n` groups has all its pods Ready. */
export function groupsReady(pods: Json[], n: number): StepOutcome {
  const live = pods.filter((p) => rec(p.metadata).deletionTimestamp === undefined);
  const ready = live.filter(podReady).length;
  const want = n * groupSize;
  const done = live.length === want && ready === want && new Set(live.map(groupOf)).size === n;
  return { done, detail: `${n} groups of ${groupSize}, ${ready} pods Ready`, progress: `${ready}/${want} pods Ready` };
}

export type Uids = ReadonlyMap<string, string>;

export function uidsOf(pods: Json[]): Map<string, string> {
  return new Map(pods.filter((p) => rec(p.metadata).deletionTimestamp === undefined).map((p) => [nameOf(p), str(rec(p.metadata).uid) ?? '']));
}

/**
 * Every pod of one group has a new uid and is Ready, while every other group's pods are the ones of `before`; the
 * detail names the group.
 */
export function groupRecreated(before: Uids, pods: Json[]): StepOutcome {
  const live = pods.filter((p) => rec(p.metadata).deletionTimestamp === undefined);
  const changed = live.filter((p) => before.get(nameOf(p)) !== str(rec(p.metadata).uid));
  const changedGroups = [...new Set(changed.map(groupOf))];
  if (changedGroups.length !== 1) return { done: false, progress: changed.length ? `pods replaced in groups ${changedGroups.sort().join(', ')}` : 'no pod replaced yet' };
  const g = changedGroups[0];
  const inGroup = live.filter((p) => groupOf(p) === g);
  const ready = inGroup.filter(podReady).length;
  const others = live.filter((p) => groupOf(p) !== g);
  const done = inGroup.length === groupSize && changed.length === groupSize && ready === groupSize && others.every((p) => before.get(nameOf(p)) === str(rec(p.metadata).uid));
  return { done, detail: `all ${groupSize} pods of group ${g} are new, the other groups untouched`, progress: `${changed.length}/${groupSize} pods of group ${g} replaced, ${ready} Ready` };
}

async function pods(api: LessonApi): Promise<Json[]> {
  return api.list(podsPath);
}

/** The RecreateGroup event's message, if the controller has recorded one. */
async function recreateEvent(api: LessonApi): Promise<string | undefined> {
  const events = await api.list(`/api/v1/namespaces/${ns}/events?fieldSelector=${encodeURIComponent('reason=RecreateGroup')}`);
  return events.map((e) => str(e.message)).find((m) => m !== undefined);
}

const create: LessonFactory = (): Lesson => {
  let before: Uids = new Map();
  return {
    name: lesson,
    title: 'Lesson: an inference service in LeaderWorkerSet groups, recreated whole',
    intro: [
      `The lesson creates LeaderWorkerSet ${setName} in namespace ${ns}: ${groups} groups of ${groupSize} pods (a leader and its`,
      'workers, as one model replica served across several hosts). A group lives and dies together.',
      secondTerminal,
    ],
    async setup(ctx) {
      const { api, say } = ctx;
      await startOver(ctx, lesson, 'lws', lwsPath, [lwsPath]);
      await claimName(api, `${lwsPath}/${setName}`, lesson);
      await api.create(lwsPath, leaderWorkerSet());
      say(`leaderworkerset.leaderworkerset.x-k8s.io/${setName} created in namespace ${ns}`);
    },
    steps: [
      {
        heading: 'Groups of a leader and its workers',
        instructions: () => [
          `kubectl -n ${ns} get lws ${setName}`,
          `kubectl -n ${ns} get pods -L ${groupIndexLabel},leaderworkerset.sigs.k8s.io/worker-index`,
          `kubectl -n ${ns} get statefulsets     # one for the leaders, one per group for its workers`,
        ],
        async check({ api }) {
          return groupsReady(await pods(api), groups);
        },
        ok: 'both groups are Ready',
        hint: `the pods pull their image and start; watch them with kubectl -n ${ns} get pods -w`,
      },
      {
        heading: 'Lose one worker',
        async act({ api }) {
          before = uidsOf(await pods(api));
        },
        instructions: () => [
          `kubectl -n ${ns} delete pod ${setName}-1-2 --wait=false   # a worker of group 1`,
          `kubectl -n ${ns} get pods -w      # the leader ${setName}-1 goes too, and the whole group comes back`,
          `kubectl -n ${ns} get events --field-selector reason=RecreateGroup`,
        ],
        async check({ api }) {
          const r = groupRecreated(before, await pods(api));
          if (!r.done) return r;
          const event = await recreateEvent(api);
          return { done: true, detail: `${r.detail}${event ? ` (event: ${event})` : ''}` };
        },
        ok: 'the whole group was recreated',
        hint: `delete one worker pod: kubectl -n ${ns} delete pod ${setName}-1-2 --wait=false`,
      },
      {
        heading: 'Scale by a group',
        instructions: () => [
          `kubectl -n ${ns} scale lws/${setName} --replicas ${groups + 1}   # replicas count groups, not pods`,
          `kubectl -n ${ns} get pods -L ${groupIndexLabel}`,
        ],
        async check({ api }) {
          const set = await api.get(`${lwsPath}/${setName}`);
          if (!set) return { done: false, progress: `leaderworkerset ${setName} is gone` };
          const r = groupsReady(await pods(api), groups + 1);
          const readyGroups = num(rec(set.status).readyReplicas);
          return r.done && readyGroups === groups + 1 ? { done: true, detail: `${r.detail}; lws ${setName} READY ${groups + 1}` } : { done: false, progress: r.progress };
        },
        ok: 'a third group serves',
        hint: `kubectl -n ${ns} scale lws/${setName} --replicas ${groups + 1}`,
      },
    ],
    outro: [
      'What happened: the LeaderWorkerSet controller made a StatefulSet of leaders, and for each leader a StatefulSet',
      'of its workers. With RecreateGroupOnPodRestart a worker that fails or goes makes the controller delete the',
      'group\'s leader, which takes its workers with it: the group restarts as one, as a model sharded across hosts',
      'must. Scaling the set adds whole groups.',
    ],
  };
};

export default create;
