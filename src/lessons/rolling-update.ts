// Lesson `rolling-update`: a Deployment is rolled to an image tag that does not exist; the rollout stalls (the old
// pods keep serving), the learner inspects the failing pod and runs `kubectl rollout undo`.
import type { Json } from './lesson-api.js';
import { annotationsOf, arr, conditionTrue, containerTrouble, isDeleting, nameOf, num, ownerNames, rec, str } from './lesson-objects.js';
import { ensureLessonNamespace, lessonNamespace, resetLessonObjects } from './lesson-namespace.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';

export const goodImage = 'nginx:1.27';
export const badImage = 'nginx:1.72';
const replicas = 3;
const lessonName = 'rolling-update';
const ns = lessonNamespace(lessonName);
const n = `-n ${ns}`;
const deploymentsPath = `/apis/apps/v1/namespaces/${ns}/deployments`;
const deployPath = `${deploymentsPath}/web`;
const rsPath = `/apis/apps/v1/namespaces/${ns}/replicasets?labelSelector=app%3Dweb`;
const podsPath = `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dweb`;
const revisionKey = 'deployment.kubernetes.io/revision';

export function deployment(): Json {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name: 'web', namespace: ns, labels: { app: 'web', 'bonsai.dev/lesson': lessonName } },
    spec: {
      replicas,
      // A new pod counts only once it has stayed ready this long.
      minReadySeconds: 5,
      progressDeadlineSeconds: 60,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: 'web', 'bonsai.dev/lesson': lessonName } },
        spec: { containers: [{ name: 'web', image: goodImage, ports: [{ containerPort: 80 }], resources: { requests: { cpu: '100m', memory: '64Mi' } } }] },
      },
    },
  };
}

/**
 * The broken release: an unknown tag of a known image, which the simulated registry refuses (ErrImagePull, then
 * ImagePullBackOff with the kubelet's back-off), as a real registry would.
 */
export function brokenRelease(): Json {
  return { spec: { template: { spec: { containers: [{ name: 'web', image: badImage }] } } } };
}

function template(d: Json): Json {
  return rec(rec(d.spec).template);
}
export function templateImage(d: Json): string | undefined {
  return str(arr(rec(template(d).spec).containers)[0]?.image);
}
function revision(o: Json): string {
  return str(annotationsOf(o)[revisionKey]) ?? '?';
}

/** The Deployment has all its replicas available on the current template. */
export function rolledOut(d: Json): StepOutcome {
  const s = rec(d.status);
  const want = num(rec(d.spec).replicas);
  const current = num(s.observedGeneration) >= num(rec(d.metadata).generation);
  const done = current && num(s.updatedReplicas) === want && num(s.availableReplicas) === want && num(s.replicas) === want && conditionTrue(d, 'Available');
  return { done, progress: `${num(s.availableReplicas)}/${want} available, ${num(s.updatedReplicas)} up to date` };
}

/** A failing pod of the ReplicaSet `rs`. */
export function failingPod(pods: Json[], rs: string): StepOutcome {
  const mine = pods.filter((p) => ownerNames(p).includes(rs) && !isDeleting(p));
  for (const p of mine) {
    const trouble = containerTrouble(p);
    if (trouble) return { done: true, detail: `${nameOf(p)} is ${trouble}` };
  }
  return { done: false, progress: mine.length ? `new pod ${nameOf(mine[0])}: ${str(rec(mine[0].status).phase) ?? 'Pending'}` : 'waiting for the new ReplicaSet\'s pod' };
}

/** The Deployment's template is the good one again. */
export function backOnGoodTemplate(d: Json): boolean {
  return templateImage(d) === goodImage;
}

const create: LessonFactory = (): Lesson => {
  let badRs = '';
  return {
    name: lessonName,
    title: 'Lesson: a rolling update that goes wrong, and its rollback',
    intro: [
      `The lesson creates Deployment web (${replicas} replicas of ${goodImage}, maxSurge 1, maxUnavailable 0) in namespace ${ns}`,
      `(its own: your objects elsewhere are left alone). Every kubectl command below says -n ${ns}.`,
      'Keep a second terminal open for kubectl; Ctrl-C here ends the lesson (the objects stay).',
    ],
    async setup(ctx) {
      await ensureLessonNamespace(ctx, lessonName);
      await resetLessonObjects(ctx, lessonName, [{ listPath: deploymentsPath, body: deployment() }]);
    },
    steps: [
      {
        heading: 'Watch web roll out',
        instructions: () => [`kubectl get deployment web ${n}`, `kubectl get replicasets,pods -l app=web -o wide ${n}`, `kubectl rollout history deployment/web ${n}`],
        async check({ api }) {
          const d = await api.get(deployPath);
          if (!d) return { done: false, progress: 'deployment web is gone' };
          const r = rolledOut(d);
          return r.done ? { done: true, detail: `${replicas}/${replicas} replicas available on ${goodImage} (revision ${revision(d)})` } : r;
        },
        ok: 'web is Available',
        hint: `pods pull their image, start and must stay ready 5 s (minReadySeconds); watch them with kubectl get pods -l app=web -w ${n}`,
      },
      {
        heading: 'A broken release',
        async act({ api, say }) {
          await api.patch(deployPath, brokenRelease());
          say(`A teammate has just shipped web with image ${badImage} (they meant ${goodImage}).`);
        },
        instructions: () => [
          `kubectl rollout status deployment/web ${n}    # it does not finish: Ctrl-C it once you have seen enough`,
          `kubectl get pods -l app=web ${n}              # one new pod that never becomes Ready; the old ones keep serving`,
          `kubectl describe pod <the new pod> ${n}       # its Events say why (Failed to pull image …, then Back-off pulling image)`,
          `kubectl get deployment web -o yaml ${n}       # after 60 s the Progressing condition says ProgressDeadlineExceeded`,
        ],
        async check({ api }) {
          const d = await api.get(deployPath);
          if (!d) return { done: false, progress: 'deployment web is gone' };
          const rev = revision(d);
          const rs = (await api.list(rsPath)).find((r) => revision(r) === rev && templateImage(r) === badImage);
          if (!rs) return { done: false, progress: 'waiting for the new ReplicaSet' };
          badRs = nameOf(rs);
          return failingPod(await api.list(podsPath), badRs);
        },
        ok: 'the new version does not run',
        hint: `kubectl get pods -l app=web ${n} shows the new pod's STATUS; kubectl describe pod NAME ${n} shows its events`,
      },
      {
        heading: 'Roll back',
        instructions: () => [
          `kubectl rollout history deployment/web ${n}`,
          `kubectl rollout undo deployment/web ${n}      # back to the previous revision's pod template`,
          `kubectl rollout status deployment/web ${n}`,
        ],
        async check({ api }) {
          const d = await api.get(deployPath);
          if (!d) return { done: false, progress: 'deployment web is gone' };
          return backOnGoodTemplate(d) ? { done: true, detail: `template back on ${goodImage} (now revision ${revision(d)})` } : { done: false };
        },
        ok: 'rolled back',
        hint: `run kubectl rollout undo deployment/web ${n} (kubectl rollout history deployment/web ${n} lists the revisions)`,
      },
      {
        async check({ api }) {
          const d = await api.get(deployPath);
          if (!d) return { done: false, progress: 'deployment web is gone' };
          const r = rolledOut(d);
          const bad = (await api.list(rsPath)).find((rs) => nameOf(rs) === badRs);
          const badLeft = bad ? num(rec(bad.spec).replicas) + num(rec(bad.status).replicas) : 0;
          if (r.done && badLeft === 0) return { done: true, detail: `${replicas}/${replicas} available on ${goodImage}, ReplicaSet ${badRs} scaled to 0` };
          return { done: false, progress: `${r.progress}${badLeft ? `, ${badRs} still has pods` : ''}` };
        },
        ok: 'web is Available on the good revision',
        hint: `the failing pod goes once the rollback is complete; kubectl get rs -l app=web ${n} shows both ReplicaSets`,
      },
    ],
    outro: [
      'What happened: the Deployment made a new ReplicaSet for the new template and scaled it up one pod at a time;',
      'with maxUnavailable 0 no old pod went before a new one was available, so web kept serving. `rollout undo`',
      'copied the previous ReplicaSet\'s template back into the Deployment, which scaled the broken ReplicaSet to 0.',
    ],
  };
};

export default create;
