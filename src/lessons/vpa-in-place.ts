// Lesson `vpa-in-place`: a VerticalPodAutoscaler (add-on vpa) watches a Deployment whose pods use five times the CPU
// they request; the learner reads its recommendation, then switches it to updateMode InPlaceOrRecreate and sees the
// pods' requests raised through pods/resize: same pods, no restart.
import type { Json, LessonApi } from './lesson-api.js';
import { annotationsOf, arr, condition, nameOf, num, rec, str } from './lesson-objects.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';
import { claimName, lessonLabel, lessonMeta, lessonNamespace, livePods, secondTerminal, startOver } from './addon-lesson-helpers.js';

const lesson = 'vpa-in-place';
const ns = lessonNamespace(lesson);
const app = 'api';
export const requestedCpu = '100m';
const requestedMemory = '64Mi';
export const usedCpu = '500m';
/** The updater leaves a controller with fewer live pods alone (its minReplicas default). */
const replicas = 2;
const vpasPath = `/apis/autoscaling.k8s.io/v1/namespaces/${ns}/verticalpodautoscalers`;
const deploymentsPath = `/apis/apps/v1/namespaces/${ns}/deployments`;

export function deployment(): Json {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: lessonMeta(lesson, app, { app }),
    spec: {
      replicas, selector: { matchLabels: { app } },
      template: {
        // The simulated runtime reports this much CPU in use (metrics.k8s.io, kubectl top): the VPA's input.
        metadata: { labels: { app, [lessonLabel]: lesson }, annotations: { 'bonsai.dev/cpu-usage': usedCpu } },
        spec: { containers: [{ name: app, image: 'nginx', resources: { requests: { cpu: requestedCpu, memory: requestedMemory } } }] },
      },
    },
  };
}

export function verticalPodAutoscaler(): Json {
  return {
    apiVersion: 'autoscaling.k8s.io/v1', kind: 'VerticalPodAutoscaler', metadata: lessonMeta(lesson, app),
    spec: { targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: app }, updatePolicy: { updateMode: 'Off' } },
  };
}

export const switchCommand = `kubectl -n ${ns} patch vpa ${app} --type merge -p '{"spec":{"updatePolicy":{"updateMode":"InPlaceOrRecreate"}}}'`;

/** The recommended target of the container, when the VPA provides one. */
export function recommendedTarget(vpa: Json): { cpu: string; memory: string } | undefined {
  if (condition(vpa, 'RecommendationProvided')?.status !== 'True') return undefined;
  const r = arr(rec(rec(vpa.status).recommendation).containerRecommendations).find((c) => c.containerName === app);
  const target = rec(r?.target);
  const cpu = str(target.cpu), memory = str(target.memory);
  return cpu && memory ? { cpu, memory } : undefined;
}

export function updateMode(vpa: Json): string {
  return str(rec(rec(vpa.spec).updatePolicy).updateMode) ?? 'Recreate';
}

function requests(pod: Json): Json {
  return rec(rec(arr(rec(pod.spec).containers)[0]?.resources).requests);
}
function restarts(pod: Json): number {
  return num(arr(rec(pod.status).containerStatuses)[0]?.restartCount);
}

export type Before = ReadonlyMap<string, string>;

/**
 * Every pod of `before` (name -> uid) is still there with its uid, its CPU request changed by the VPA's updater
 * (annotation vpaInPlaceUpdated) and no restart.
 */
export function resizedInPlace(before: Before, pods: Json[]): StepOutcome {
  const same = pods.filter((p) => before.get(nameOf(p)) === str(rec(p.metadata).uid));
  const resized = same.filter((p) => requests(p).cpu !== requestedCpu && annotationsOf(p).vpaInPlaceUpdated === 'true' && restarts(p) === 0);
  const replaced = pods.length - same.length;
  const done = before.size > 0 && pods.length === before.size && resized.length === before.size;
  const first = resized[0];
  return {
    done,
    detail: first ? `${nameOf(first)}: cpu ${requestedCpu} -> ${str(requests(first).cpu)}, memory ${requestedMemory} -> ${str(requests(first).memory)}; ${resized.length} pods, same uids, 0 restarts` : '',
    progress: `${resized.length}/${before.size} pods resized in place${replaced ? `, ${replaced} replaced` : ''}`,
  };
}

async function vpaOf(api: LessonApi): Promise<Json | undefined> {
  return api.get(`${vpasPath}/${app}`);
}

const create: LessonFactory = (): Lesson => {
  let before: Before = new Map();
  return {
    name: lesson,
    title: 'Lesson: a VerticalPodAutoscaler resizes pods in place',
    intro: [
      `In namespace ${ns} the lesson creates Deployment ${app} (${replicas} pods requesting ${requestedCpu} CPU, each using ${usedCpu}) and`,
      `VerticalPodAutoscaler ${app} in updateMode Off: it recommends, and changes nothing.`,
      secondTerminal,
    ],
    async setup(ctx) {
      const { api, say } = ctx;
      await startOver(ctx, lesson, 'vpa', vpasPath, [vpasPath, deploymentsPath]);
      await claimName(api, `${vpasPath}/${app}`, lesson);
      await api.create(deploymentsPath, deployment());
      await api.create(vpasPath, verticalPodAutoscaler());
      say(`deployment.apps/${app} and verticalpodautoscaler.autoscaling.k8s.io/${app} created in namespace ${ns}`);
    },
    steps: [
      {
        heading: 'Read the recommendation',
        instructions: () => [
          `kubectl -n ${ns} top pods                # each uses ${usedCpu} of CPU, on a ${requestedCpu} request`,
          `kubectl -n ${ns} get vpa ${app}            # MODE Off, the recommended CPU and MEM, PROVIDED`,
          `kubectl -n ${ns} describe vpa ${app}       # target, lower and upper bounds`,
        ],
        async check({ api }) {
          const v = await vpaOf(api);
          const target = v && recommendedTarget(v);
          return target ? { done: true, detail: `target cpu ${target.cpu}, memory ${target.memory}` } : { done: false, progress: 'no recommendation yet' };
        },
        ok: 'the VPA recommends',
        hint: 'the recommender runs once a minute of clock time and needs the pods\' usage first: kubectl get vpa -w',
      },
      {
        heading: 'Let it resize in place',
        async act({ api }) {
          before = new Map((await livePods(api, lesson, app)).map((p) => [nameOf(p), str(rec(p.metadata).uid) ?? '']));
        },
        instructions: () => [switchCommand],
        async check({ api }) {
          const v = await vpaOf(api);
          const mode = v ? updateMode(v) : 'gone';
          return mode === 'InPlaceOrRecreate' ? { done: true } : { done: false, progress: `updateMode ${mode}` };
        },
        ok: 'the VPA may resize the pods',
        hint: `switch the mode: ${switchCommand}`,
      },
      {
        instructions: () => [
          `kubectl -n ${ns} get pods -o custom-columns=NAME:.metadata.name,CPU:.spec.containers[0].resources.requests.cpu,MEMORY:.spec.containers[0].resources.requests.memory,RESTARTS:.status.containerStatuses[0].restartCount -w`,
          `kubectl -n ${ns} get events --field-selector reason=InPlaceResizedByVPA`,
        ],
        async check({ api }) {
          return resizedInPlace(before, await livePods(api, lesson, app));
        },
        ok: 'resized in place',
        hint: 'the updater runs once a minute of clock time; kubectl describe pod shows the resize in its events',
      },
    ],
    outro: [
      'What happened: the recommender built a histogram of each container\'s use and recommended requests around its',
      'high percentile plus a margin. In InPlaceOrRecreate mode the updater found the pods\' requests outside the',
      'recommended bounds and wrote the target through the pods/resize subresource; the kubelet applied it to the',
      'running containers. Only a resize it could not apply would have made the updater evict the pod instead.',
    ],
  };
};

export default create;
