// Lesson `jobset-failure-policy`: a JobSet whose failure policy names its rules; a worker is OOM-killed (exit 137),
// its Job fails by the pod failure policy rule `oom`, the JobSet rule `restartOnOOM` restarts the whole set, and the
// second attempt completes. Then the learner applies a JobSet whose worker exits 2: rule `failOnBadConfig` fails it
// at once, without a restart.
import type { Json, LessonApi } from './lesson-api.js';
import { applyCommand, arr, condition, num, rec, str } from './lesson-objects.js';
import { ensureLessonNamespace, lessonNamespace, resetLessonObjects } from './lesson-namespace.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';

const lessonName = 'jobset-failure-policy';
const ns = lessonNamespace(lessonName);
const n = `-n ${ns}`;
const group = '/apis/jobset.x-k8s.io/v1alpha2';
const jobSetsPath = `${group}/namespaces/${ns}/jobsets`;
const attemptLabel = 'jobset.sigs.k8s.io/restart-attempt';
const indexLabel = 'jobset.sigs.k8s.io/job-index';
/** How long the JobSet CRD may take to be served after the server starts. */
const crdWaitMs = 60_000;

/** The JobSet rules, named: the name shows in the RestartingJobSet condition's reason. */
export function failurePolicy(): Json {
  return {
    maxRestarts: 3,
    rules: [
      { name: 'restartOnOOM', action: 'RestartJobSet', onJobFailureReasons: ['PodFailurePolicy_oom'] },
      { name: 'failOnBadConfig', action: 'FailJobSet', onJobFailureReasons: ['PodFailurePolicy_bad-config'] },
    ],
  };
}

/** A JobSet of `replicas` workers running `script`; each Job fails on exit 137 (rule oom) or 2 (rule bad-config). */
export function jobSet(name: string, replicas: number, script: string, env: Json[] = []): Json {
  const onExit = (rule: string, code: number) => ({ name: rule, action: 'FailJob', onExitCodes: { containerName: 'main', operator: 'In', values: [code] } });
  return {
    apiVersion: 'jobset.x-k8s.io/v1alpha2', kind: 'JobSet',
    metadata: { name, namespace: ns, labels: { 'bonsai.dev/lesson': lessonName } },
    spec: {
      failurePolicy: failurePolicy(),
      replicatedJobs: [{
        name: 'workers', replicas,
        template: {
          spec: {
            backoffLimit: 0,
            podFailurePolicy: { rules: [onExit('oom', 137), onExit('bad-config', 2)] },
            template: {
              metadata: { labels: { 'bonsai.dev/lesson': lessonName } },
              spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'busybox:1.36', command: ['sh', '-c', script], env }] },
            },
          },
        },
      }],
    },
  };
}

/** `train`: worker 1 runs out of memory in the first attempt only. */
export function trainJobSet(): Json {
  const label = (key: string) => ({ valueFrom: { fieldRef: { fieldPath: `metadata.labels['${key}']` } } });
  return jobSet('train', 2, [
    'echo "worker $INDEX, attempt $ATTEMPT: loading checkpoint"', 'sleep 20',
    'if [ "$ATTEMPT" = 0 ] && [ "$INDEX" = 1 ]; then echo "CUDA out of memory"; exit 137; fi',
    'sleep 10', 'echo "worker $INDEX: epoch done"',
  ].join('; '), [{ name: 'ATTEMPT', ...label(attemptLabel) }, { name: 'INDEX', ...label(indexLabel) }]);
}

/** `train-bad`, for the learner to apply: its workers find their configuration invalid. */
export function badConfigJobSet(): Json {
  return jobSet('train-bad', 2, 'echo "reading config"; sleep 5; echo "invalid learning rate: -1"; exit 2');
}

export function restartingReason(js: Json): string | undefined {
  const c = condition(js, 'RestartingJobSet');
  return c?.status === 'True' ? str(c.reason) : undefined;
}

/** The JobSet has restarted at least once; `seen` is the rule reason seen in its condition, if any. */
export function restarted(js: Json, seen: string | undefined): StepOutcome {
  const restarts = num(rec(js.status).restarts);
  if (restarts >= 1) return { done: true, detail: `status.restarts is ${restarts}${seen ? `, RestartingJobSet reason ${seen}` : ''}` };
  const failedJobs = arr(rec(js.status).replicatedJobsStatus).reduce((s, r) => s + num(r.failed), 0);
  return { done: false, progress: failedJobs ? `${failedJobs} job(s) failed` : 'the workers are running' };
}

/** The JobSet's terminal state: Completed / Failed with the reason, or undefined while it runs. */
export function terminal(js: Json): { state: 'Completed' | 'Failed'; reason: string; message: string } | undefined {
  for (const state of ['Completed', 'Failed'] as const) {
    const c = condition(js, state);
    if (c?.status === 'True') return { state, reason: str(c.reason) ?? '', message: str(c.message) ?? '' };
  }
  return undefined;
}

async function waitForCrd(api: LessonApi): Promise<void> {
  const deadline = Date.now() + crdWaitMs;
  while (!(await api.get(group))) {
    if (Date.now() > deadline) throw new Error('this lesson needs the jobset add-on (JobSets are not served): start the server with it (npx bonsai serve --addons \'*\' or --addons jobset)');
    await new Promise((r) => setTimeout(r, 500));
  }
}

const create: LessonFactory = (): Lesson => {
  let seenReason: string | undefined;
  const get = (api: LessonApi, name: string) => api.get(`${jobSetsPath}/${name}`);
  return {
    name: lessonName,
    title: 'Lesson: a JobSet restarted by a named failure-policy rule',
    intro: [
      `The lesson creates JobSet train (2 workers) in namespace ${ns} (its own: your objects elsewhere are left alone).`,
      'Its Jobs name the exit codes they fail on (pod failure policy rules oom: 137, bad-config: 2) and the JobSet',
      'names what each failure does: restartOnOOM restarts the whole set (at most 3 times), failOnBadConfig fails it.',
      `Every kubectl command below says -n ${ns}. Ctrl-C here ends the lesson (the objects stay).`,
    ],
    async setup(ctx) {
      await waitForCrd(ctx.api);
      await ensureLessonNamespace(ctx, lessonName);
      await resetLessonObjects(ctx, lessonName, [{ listPath: jobSetsPath, body: trainJobSet() }], [], { foreground: true, gracePeriodSeconds: 0 });
    },
    steps: [
      {
        heading: 'A worker runs out of memory',
        instructions: () => [
          `kubectl get jobset train -w ${n}                      # RESTARTS goes to 1`,
          `kubectl get jobs -L ${attemptLabel} ${n}   # the failed attempt-0 Job, then the attempt-1 Jobs`,
          `kubectl get events ${n} --field-selector involvedObject.name=train   # RestartJobSetFailurePolicyAction`,
        ],
        async check({ api }) {
          const js = await get(api, 'train');
          if (!js) return { done: false, progress: 'JobSet train is gone' };
          seenReason = restartingReason(js) ?? seenReason;
          return restarted(js, seenReason);
        },
        ok: 'the JobSet restarted by rule restartOnOOM',
        hint: `worker 1 exits 137 after 20 s; its Job fails with reason PodFailurePolicy_oom: kubectl get jobs -o wide ${n}`,
      },
      {
        instructions: () => [
          `kubectl get jobset train ${n} -o jsonpath='{.status.restarts}{"\\n"}{.status.conditions}'`,
          `kubectl logs -l ${indexLabel}=1 ${n}        # the new attempt's worker 1`,
        ],
        async check({ api }) {
          const js = await get(api, 'train');
          if (!js) return { done: false, progress: 'JobSet train is gone' };
          seenReason = restartingReason(js) ?? seenReason;
          const t = terminal(js);
          if (t?.state === 'Completed') return { done: true, detail: `Completed after ${num(rec(js.status).restarts)} restart(s)` };
          return { done: false, progress: t ? `JobSet train ${t.state}: ${t.reason}` : `attempt ${num(rec(js.status).restarts)} running` };
        },
        ok: 'the second attempt completed',
        hint: 'the restarted workers run their 30 s and succeed: kubectl get jobset train -w',
      },
      {
        heading: 'A configuration error fails the set at once',
        instructions: () => [
          'Apply JobSet train-bad, whose workers exit 2 (an invalid configuration):',
          applyCommand(badConfigJobSet()),
          `kubectl get jobset train-bad -w ${n}      # no restart: TERMINALSTATE Failed`,
          `kubectl describe jobset train-bad ${n}    # Failed: FailJobSetFailurePolicyAction`,
        ],
        async check({ api }) {
          const js = await get(api, 'train-bad');
          if (!js) return { done: false, progress: 'JobSet train-bad not applied yet' };
          const t = terminal(js);
          if (!t) return { done: false, progress: 'train-bad is running' };
          return { done: t.state === 'Failed', detail: `train-bad ${t.state} (${t.reason}: ${t.message}), ${num(rec(js.status).restarts)} restarts`, progress: `train-bad ${t.state}` };
        },
        ok: 'rule failOnBadConfig failed the JobSet',
        hint: 'paste the echo … | kubectl apply -f - line above; the workers exit 2 after 5 s',
      },
    ],
    outro: [
      'What happened: each Job\'s pod failure policy turned an exit code into a named failure reason',
      '(PodFailurePolicy_oom, PodFailurePolicy_bad-config); the JobSet\'s first matching rule decided what to do:',
      'restart the whole set (counted against maxRestarts) for an OOM kill, fail it at once for a bad configuration.',
    ],
  };
};

export default create;
