// Lesson `keda-scale-to-zero`: a ScaledObject (add-on keda) with minReplicaCount 0 scales a queue consumer on a
// metric of the simulated external metrics source (the ConfigMap bonsai-external-metrics, served by
// external.metrics.k8s.io and read there by KEDA's metrics-api scaler); the learner empties the queue and sees the
// Deployment go to 0, then fills it and sees the pods come back.
import type { Json, LessonApi } from './lesson-api.js';
import { conditionTrue, num, podReady, rec } from './lesson-objects.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';
import { claimName, lessonLabel, lessonMeta, lessonNamespace, livePods, secondTerminal, startOver, waitGone } from './addon-lesson-helpers.js';

const lesson = 'keda-scale-to-zero';
const ns = lessonNamespace(lesson);
const app = 'consumer';
export const metric = 'queue_length';
const configMapName = 'bonsai-external-metrics';
/** Messages one pod handles: the HPA KEDA makes aims at this many per replica. */
export const perPod = 2;
const initialQueue = 4;
export const refill = 6;
const scaledObjectsPath = `/apis/keda.sh/v1alpha1/namespaces/${ns}/scaledobjects`;
const deploymentsPath = `/apis/apps/v1/namespaces/${ns}/deployments`;
const configMapsPath = `/api/v1/namespaces/${ns}/configmaps`;
/** Where the metric is served; KEDA's scaler reads it there (path relative to the server). */
export const metricPath = `/apis/external.metrics.k8s.io/v1beta1/namespaces/${ns}/${metric}`;

export function metricsConfigMap(value: number): Json {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: lessonMeta(lesson, configMapName), data: { [metric]: String(value) } };
}

export function deployment(): Json {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: lessonMeta(lesson, app, { app }),
    spec: {
      replicas: 1, selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app, [lessonLabel]: lesson } },
        spec: { terminationGracePeriodSeconds: 5, containers: [{ name: 'consume', image: 'busybox', command: ['sleep', '1000000'], resources: { requests: { cpu: '50m', memory: '32Mi' } } }] },
      },
    },
  };
}

/** The ScaledObject: the metrics-api scaler GETs the metric from the server at `server` (a plain-HTTP address). */
export function scaledObject(server: string): Json {
  return {
    apiVersion: 'keda.sh/v1alpha1', kind: 'ScaledObject', metadata: lessonMeta(lesson, app),
    spec: {
      scaleTargetRef: { name: app }, minReplicaCount: 0, maxReplicaCount: 6, pollingInterval: 5, cooldownPeriod: 30,
      triggers: [{ type: 'metrics-api', metadata: { url: `${server.replace(/\/$/, '')}${metricPath}`, valueLocation: 'items.0.value', targetValue: String(perPod), activationTargetValue: '0' } }],
    },
  };
}

/** The line that sets the metric. */
export function setMetricCommand(value: number): string {
  return `kubectl -n ${ns} patch configmap ${configMapName} --type merge -p '{"data":{"${metric}":"${value}"}}'`;
}

/** The Deployment asks for `want` replicas and has exactly that many Ready pods. */
export function scaledTo(d: Json | undefined, pods: Json[], want: number): StepOutcome {
  const replicas = num(rec(d?.spec).replicas);
  const ready = pods.filter(podReady).length;
  return { done: d !== undefined && replicas === want && pods.length === want && ready === want, progress: `replicas ${replicas}, pods ${pods.length} (${ready} Ready)` };
}

async function look(api: LessonApi): Promise<{ so?: Json; d?: Json; pods: Json[] }> {
  const [so, d, pods] = await Promise.all([api.get(`${scaledObjectsPath}/${app}`), api.get(`${deploymentsPath}/${app}`), livePods(api, lesson, app)]);
  return { so, d, pods };
}

const create: LessonFactory = (): Lesson => ({
  name: lesson,
  title: 'Lesson: KEDA scales a queue consumer to zero and back',
  intro: [
    `In namespace ${ns} the lesson creates ConfigMap ${configMapName} (${metric}: ${initialQueue}),`,
    `which Bonsai serves as the external metric ${metric}; Deployment ${app}; and ScaledObject ${app}`,
    `(minReplicaCount 0, ${perPod} messages a pod) whose metrics-api trigger reads that metric from the server.`,
    'Here the ConfigMap plays the queue.',
    secondTerminal,
  ],
  async setup(ctx) {
    const { api, say } = ctx;
    if (!api.server?.startsWith('http://')) {
      throw new Error('this lesson needs the server\'s plain-HTTP address (the default of npm start): KEDA\'s metrics-api scaler reads the metric from it without credentials');
    }
    await startOver(ctx, lesson, 'keda', scaledObjectsPath, [scaledObjectsPath, deploymentsPath]);
    await claimName(api, `${configMapsPath}/${configMapName}`, lesson);
    // KEDA's webhook refuses a second autoscaler for the Deployment: the earlier ScaledObject's HPA must be gone too.
    await waitGone(api, `/apis/autoscaling/v2/namespaces/${ns}/horizontalpodautoscalers?fieldSelector=${encodeURIComponent(`metadata.name=keda-hpa-${app}`)}`, 'the earlier run\'s HPA');
    await api.create(configMapsPath, metricsConfigMap(initialQueue));
    await api.create(deploymentsPath, deployment());
    await api.create(scaledObjectsPath, scaledObject(api.server));
    say(`configmap/${configMapName}, deployment.apps/${app} and scaledobject.keda.sh/${app} created in namespace ${ns}`);
  },
  steps: [
    {
      heading: 'A consumer scaled on its queue',
      instructions: () => [
        `kubectl get --raw ${metricPath}`,
        `kubectl -n ${ns} get scaledobject ${app}    # READY and ACTIVE`,
        `kubectl -n ${ns} get hpa                    # keda-hpa-${app}: KEDA hands 1 -> N to an HPA`,
      ],
      async check({ api }) {
        const { so, d, pods } = await look(api);
        const want = initialQueue / perPod;
        const r = scaledTo(d, pods, want);
        const active = so !== undefined && conditionTrue(so, 'Ready') && conditionTrue(so, 'Active');
        if (r.done && active) return { done: true, detail: `${metric} ${initialQueue}, ${perPod} a pod: ${want} replicas, ScaledObject Active` };
        return { done: false, progress: `${r.progress}${active ? '' : ', ScaledObject not Active yet'}` };
      },
      ok: 'the consumer runs',
      hint: `kubectl -n ${ns} describe scaledobject ${app} shows KEDA's events (KEDAScalerFailed says why a reading failed)`,
    },
    {
      heading: 'The queue empties',
      instructions: () => [
        setMetricCommand(0),
        `kubectl -n ${ns} get deployment ${app} -w   # after the cooldown (30 s) KEDA scales it to 0, not the HPA's minimum of 1`,
      ],
      async check({ api }) {
        const { so, d, pods } = await look(api);
        const r = scaledTo(d, pods, 0);
        if (r.done && so && !conditionTrue(so, 'Active')) return { done: true, detail: 'no pod left, ScaledObject Active=False' };
        return { done: false, progress: r.progress };
      },
      ok: 'scaled to zero',
      hint: `set the metric to 0: ${setMetricCommand(0)}`,
    },
    {
      heading: 'Work arrives',
      instructions: () => [
        setMetricCommand(refill),
        `kubectl -n ${ns} get events --field-selector reason=KEDAScaleTargetActivated`,
        `kubectl -n ${ns} get pods -w`,
      ],
      async check({ api }) {
        const { d, pods } = await look(api);
        const want = refill / perPod;
        const r = scaledTo(d, pods, want);
        return r.done ? { done: true, detail: `0 -> 1 by KEDA, 1 -> ${want} by the HPA (${refill} / ${perPod})` } : r;
      },
      ok: 'back from zero',
      hint: `raise the metric: ${setMetricCommand(refill)}`,
    },
  ],
  outro: [
    'What happened: every pollingInterval KEDA read the trigger. Above its activation value it scaled the Deployment',
    'from 0 to 1 and let its HPA (minReplicas 1) take it to queue / target pods through external.metrics.k8s.io;',
    'once the trigger had been inactive for the cooldownPeriod, KEDA itself scaled the Deployment to 0, something an',
    'HPA alone does not do.',
  ],
});

export default create;
