// Lesson `probes`: a Deployment whose readiness probe knocks on a port nginx does not listen on: its pods run but
// never become Ready and its Service has no endpoints until the learner fixes the probe; then a liveness probe on the
// wrong port gets the containers restarted until the learner fixes that one too.
import type { Json, LessonApi } from './lesson-api.js';
import { arr, containerTrouble, isDeleting, nameOf, num, podReady, rec, str } from './lesson-objects.js';
import { ensureLessonNamespace, lessonNamespace, resetLessonObjects } from './lesson-namespace.js';
import type { Lesson, LessonFactory, StepOutcome } from './lesson-types.js';
import { rolledOut } from './rolling-update.js';

const lessonName = 'probes';
const ns = lessonNamespace(lessonName);
const n = `-n ${ns}`;
const replicas = 2;
export const servingPort = 80;
export const wrongPort = 8080;
const deploymentsPath = `/apis/apps/v1/namespaces/${ns}/deployments`;
const servicesPath = `/api/v1/namespaces/${ns}/services`;
const deployPath = `${deploymentsPath}/shop`;
const podsPath = `/api/v1/namespaces/${ns}/pods?labelSelector=app%3Dshop`;
const slicesPath = `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dshop`;

export function manifests(): { deployment: Json; service: Json } {
  return {
    deployment: {
      apiVersion: 'apps/v1', kind: 'Deployment',
      metadata: { name: 'shop', namespace: ns, labels: { app: 'shop' } },
      spec: {
        replicas,
        selector: { matchLabels: { app: 'shop' } },
        template: {
          metadata: { labels: { app: 'shop', 'bonsai.dev/lesson': lessonName } },
          spec: {
            containers: [{
              name: 'shop', image: 'nginx:1.27', ports: [{ containerPort: servingPort }],
              readinessProbe: { httpGet: { path: '/', port: wrongPort }, periodSeconds: 5 },
              resources: { requests: { cpu: '100m', memory: '64Mi' } },
            }],
          },
        },
      },
    },
    service: {
      apiVersion: 'v1', kind: 'Service',
      metadata: { name: 'shop', namespace: ns },
      spec: { selector: { app: 'shop' }, ports: [{ port: 80, targetPort: servingPort }] },
    },
  };
}

/**
 * The teammate's change to Deployment `d`: a liveness probe on the wrong port, checked often, so the containers are
 * restarted soon (a merge patch replaces the containers list, so it carries the whole container).
 */
export function brokenLiveness(d: Json): Json {
  const livenessProbe = { tcpSocket: { port: wrongPort }, periodSeconds: 5, failureThreshold: 2 };
  return { spec: { template: { spec: { containers: [{ ...container(d), livenessProbe }] } } } };
}

function container(d: Json): Json {
  return arr(rec(rec(rec(d.spec).template).spec).containers)[0] ?? {};
}
/** The port a container's probe (`readinessProbe`/`livenessProbe`) knocks on, or undefined without one. */
export function probePortOf(d: Json, probe: 'readinessProbe' | 'livenessProbe'): unknown {
  const p = rec(container(d)[probe]);
  if (!Object.keys(p).length) return undefined;
  return rec(p.httpGet).port ?? rec(p.tcpSocket).port ?? 'exec';
}
/** The probe is absent or knocks on the serving port (a number, or the port's name). */
export function probeFixed(d: Json, probe: 'readinessProbe' | 'livenessProbe'): boolean {
  const port = probePortOf(d, probe);
  return port === undefined || port === servingPort || port === String(servingPort) || port === 'exec';
}

/** Ready addresses in the Service's EndpointSlices. */
export function readyEndpoints(slices: Json[]): string[] {
  const ready = slices.flatMap((s) => arr(s.endpoints)).filter((e) => rec(e.conditions).ready === true);
  return ready.map((e) => (Array.isArray(e.addresses) ? str(e.addresses[0]) : undefined) ?? '?');
}

/** Every pod runs, none is Ready, and the Service has no ready endpoint. */
export function runningNotReady(pods: Json[], endpoints: string[]): StepOutcome {
  const live = pods.filter((p) => !isDeleting(p));
  const running = live.filter((p) => rec(p.status).phase === 'Running').length;
  const ready = live.filter(podReady).length;
  const done = live.length >= replicas && running === live.length && ready === 0 && endpoints.length === 0;
  return {
    done,
    detail: `${running} pods Running, 0 Ready; Service shop has no ready endpoints`,
    progress: `${running}/${live.length} pods Running, ${ready} Ready, ${endpoints.length} ready endpoint(s)`,
  };
}

/** A pod of the current ReplicaSet restarted by its liveness probe. */
export function restartedPod(pods: Json[]): StepOutcome {
  for (const p of pods.filter((x) => !isDeleting(x))) {
    const cs = arr(rec(p.status).containerStatuses)[0] ?? {};
    const last = rec(rec(cs.lastState).terminated);
    if (num(cs.restartCount) > 0 && num(last.exitCode) === 137) return { done: true, detail: `${nameOf(p)} restarted ${num(cs.restartCount)} time(s), last exit 137 (${containerTrouble(p) ?? 'killed'})` };
  }
  return { done: false, progress: 'no restart yet' };
}

async function endpointsOf(api: LessonApi): Promise<string[]> {
  return readyEndpoints(await api.list(slicesPath));
}

const create: LessonFactory = (): Lesson => ({
  name: lessonName,
  title: 'Lesson: readiness and liveness probes that fail, and their fix',
  intro: [
    `The lesson creates Deployment shop (${replicas} × nginx:1.27, serving on port ${servingPort}) and Service shop in namespace ${ns}`,
    `(its own: your objects elsewhere are left alone). Every kubectl command below says -n ${ns}.`,
    'Keep a second terminal open for kubectl; Ctrl-C here ends the lesson (the objects stay).',
  ],
  async setup(ctx) {
    await ensureLessonNamespace(ctx, lessonName);
    const m = manifests();
    await resetLessonObjects(ctx, lessonName, [{ listPath: deploymentsPath, body: m.deployment }, { listPath: servicesPath, body: m.service }]);
  },
  steps: [
    {
      heading: 'Pods that run but are never Ready',
      instructions: () => [
        `kubectl get pods -l app=shop ${n}                 # STATUS Running, READY 0/1`,
        `kubectl describe pod -l app=shop ${n} | grep -A3 Readiness   # the probe, and Events: Readiness probe failed`,
        `kubectl get endpointslices -l kubernetes.io/service-name=shop ${n}   # ENDPOINTS <unset>: nothing to send traffic to`,
      ],
      async check({ api }) {
        return runningNotReady(await api.list(podsPath), await endpointsOf(api));
      },
      ok: 'shop runs but serves nobody',
      hint: `the readiness probe asks port ${wrongPort}; nginx listens on ${servingPort}: kubectl describe pod -l app=shop ${n}`,
    },
    {
      heading: 'Fix the readiness probe',
      instructions: () => [
        `kubectl patch deployment shop ${n} --type=json -p '[{"op":"replace","path":"/spec/template/spec/containers/0/readinessProbe/httpGet/port","value":${servingPort}}]'`,
        `(or kubectl edit deployment shop ${n}), then: kubectl get pods -l app=shop -w ${n}`,
      ],
      async check({ api }) {
        const d = await api.get(deployPath);
        if (!d) return { done: false, progress: 'deployment shop is gone' };
        if (!probeFixed(d, 'readinessProbe')) return { done: false, progress: `the readiness probe still asks port ${String(probePortOf(d, 'readinessProbe'))}` };
        const r = rolledOut(d);
        return r.done ? { done: true, detail: `${replicas}/${replicas} pods Ready` } : r;
      },
      ok: 'the pods are Ready',
      hint: `patch the probe's port to ${servingPort} (the line above), and watch the new pods turn READY 1/1`,
    },
    {
      instructions: () => [`kubectl get endpointslices -l kubernetes.io/service-name=shop ${n}   # the pods' addresses now`],
      async check({ api }) {
        const eps = await endpointsOf(api);
        return { done: eps.length >= replicas, detail: `Service shop sends traffic to ${eps.sort().join(', ')}`, progress: `${eps.length} ready endpoint(s)` };
      },
      ok: 'the Service has endpoints',
      hint: 'the EndpointSlice controller lists a pod\'s address as ready once the pod is Ready',
    },
    {
      heading: 'A liveness probe that restarts',
      async act({ api, say }) {
        const d = await api.get(deployPath);
        if (!d) throw new Error('deployment shop is gone; run the lesson again');
        await api.patch(deployPath, brokenLiveness(d));
        say(`A teammate has just added a liveness probe to shop: a TCP check of port ${wrongPort} every 5 s.`);
      },
      instructions: () => [
        `kubectl get pods -l app=shop -w ${n}              # RESTARTS climbs, then CrashLoopBackOff`,
        `kubectl describe pod -l app=shop ${n}             # Liveness probe failed …, Container shop failed liveness probe, will be restarted`,
      ],
      async check({ api }) {
        const d = await api.get(deployPath);
        if (!d) return { done: false, progress: 'deployment shop is gone' };
        const gen = num(rec(d.metadata).generation);
        if (num(rec(d.status).observedGeneration) < gen) return { done: false, progress: 'the rollout has not started' };
        return restartedPod(await api.list(podsPath));
      },
      ok: 'the liveness probe kills the containers',
      hint: `kubectl describe pod -l app=shop ${n} shows the Killing events; the probe asks port ${wrongPort}`,
    },
    {
      heading: 'Fix the liveness probe',
      instructions: () => [
        `kubectl patch deployment shop ${n} --type=json -p '[{"op":"replace","path":"/spec/template/spec/containers/0/livenessProbe/tcpSocket/port","value":${servingPort}}]'`,
        `kubectl rollout status deployment/shop ${n}`,
      ],
      async check({ api }) {
        const d = await api.get(deployPath);
        if (!d) return { done: false, progress: 'deployment shop is gone' };
        if (!probeFixed(d, 'livenessProbe')) return { done: false, progress: `the liveness probe still asks port ${String(probePortOf(d, 'livenessProbe'))}` };
        const r = rolledOut(d);
        const eps = await endpointsOf(api);
        if (r.done && eps.length >= replicas) return { done: true, detail: `${replicas}/${replicas} pods Ready, ${eps.length} endpoints` };
        return { done: false, progress: `${r.progress}, ${eps.length} ready endpoint(s)` };
      },
      ok: 'shop is healthy again',
      hint: `patch the liveness probe's port to ${servingPort} (or remove the probe: op "remove", path /spec/template/spec/containers/0/livenessProbe)`,
    },
  ],
  outro: [
    'What happened: the kubelet ran each probe against the container. A failing readiness probe kept the pods out of',
    'the Service\'s endpoints (they ran, but received no traffic); a failing liveness probe had the kubelet kill and',
    'restart the container, backing off longer each time. Both were right once they asked the port nginx serves.',
  ],
});

export default create;
