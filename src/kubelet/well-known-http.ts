// Which container of a pod listens on a port (declared ports, else the port a well-known image serves on), and
// what well-known images log when their simulated server (src/exec's responder) answers a request.
import type { Container, Pod } from '../generated/k8s/core/v1.js';
import { appendContainerLogByUid } from './container-log-append.js';
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';
import { isBootcamp, nginxAccessTime, repositoryOf } from './well-known-images.js';

export interface SimRequest {
  method: string;
  /** Path and query as the container sees them (`/`, `/index.html?x=1`). */
  path: string;
  userAgent?: string;
  /** The client address the container sees. */
  remoteAddr: string;
}

/** The port a well-known image listens on when its pod declares none. */
const imagePorts: Record<string, number> = {
  'gcr.io/google-samples/kubernetes-bootcamp': 8080, 'docker.io/jocatalin/kubernetes-bootcamp': 8080,
  'docker.io/library/nginx': 80, 'docker.io/library/httpd': 80, 'gcr.io/google-samples/hello-app': 8080,
  'us-docker.pkg.dev/google-samples/containers/gke/hello-app': 8080, 'registry.k8s.io/echoserver': 8080,
};

/** The one port a well-known server image listens on, or undefined for other images. */
export function imagePort(image: string): number | undefined {
  return imagePorts[repositoryOf(image)];
}

/** Each server's requests answered by bootcamp containers, by pod uid and container (the app's own counter). */
const requestCounts = new ServerSlot('bootcamp request counts', () => new Map<string, number>());
const maxCounted = 10_000;

/** The running container of the pod that listens on `port`. */
export function listeningContainer(pod: Pod, port: number): Container | undefined {
  const containers = pod.spec?.containers ?? [];
  const running = (c: Container) => pod.status?.containerStatuses?.some((s) => s.name === c.name && s.state?.running) ?? false;
  const declared = containers.find((c) => c.ports?.some((p) => p.containerPort === port && (p.protocol ?? 'TCP') === 'TCP'));
  const byImage = containers.find((c) => imagePorts[repositoryOf(c.image ?? '')] === port);
  const anyPort = containers.every((c) => !c.ports?.length && imagePorts[repositoryOf(c.image ?? '')] === undefined) ? containers[0] : undefined;
  const c = declared ?? byImage ?? anyPort;
  return c && running(c) ? c : undefined;
}

/**
 * What a well-known image prints when its server answers a request on `port`: the tutorial app's request line,
 * nginx's access line. Other images print nothing.
 */
export function logRequest(server: ServerStateHolder, pod: Pod, port: number, req: SimRequest, status: number, bytes: number, nowMs: number): void {
  const c = listeningContainer(pod, port);
  if (!c) return;
  const image = c.image ?? '';
  const uid = pod.metadata?.uid ?? '';
  const host = pod.spec?.hostname ?? pod.metadata?.name ?? '';
  if (isBootcamp(image)) {
    const key = `${uid}/${c.name}`;
    const counts = server.state(requestCounts);
    const n = (counts.get(key) ?? 0) + 1;
    if (counts.size >= maxCounted && !counts.has(key)) counts.clear();
    counts.set(key, n);
    const started = pod.status?.containerStatuses?.find((s) => s.name === c.name)?.state?.running?.startedAt;
    const uptime = started ? Math.max(0, (nowMs - Date.parse(started)) / 1000) : 0;
    appendContainerLogByUid(server, uid, c.name, `Running On: ${host} | Total Requests: ${n} | App Uptime: ${uptime} seconds | Log Time: ${new Date(nowMs).toISOString()}`);
    return;
  }
  if (repositoryOf(image) === 'docker.io/library/nginx') {
    const ua = (req.userAgent ?? '-').replace(/["\\]/g, (ch) => `\\${ch}`);
    appendContainerLogByUid(server, uid, c.name, `${req.remoteAddr} - - [${nginxAccessTime(nowMs)}] "${req.method} ${req.path} HTTP/1.1" ${status} ${bytes} "-" "${ua}" "-"`);
  }
}
