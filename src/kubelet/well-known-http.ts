// A minimal simulated HTTP server for the API's pods/proxy and services/proxy until the container runtime's
// responder (src/exec, port-forward) answers them: the tutorial app's greeting (and its request log line),
// nginx's welcome page (and its access line), hello-app, and a small page naming the pod for anything else.
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { appendContainerLogByUid } from './container-log-append.js';
import { isBootcamp, nginxAccessTime, repositoryOf, tagOf } from './well-known-images.js';

export interface SimRequest {
  method: string;
  /** Path and query as the container sees them (`/`, `/index.html?x=1`). */
  path: string;
  userAgent?: string;
  /** The client address the container sees. */
  remoteAddr: string;
}

export type SimReply =
  | { status: number; contentType: string; body: string; server?: string }
  /** Nothing listens there: the connection is refused. */
  | { refused: true };

/** The port a well-known image listens on when its pod declares none. */
const imagePorts: Record<string, number> = {
  'gcr.io/google-samples/kubernetes-bootcamp': 8080, 'docker.io/jocatalin/kubernetes-bootcamp': 8080,
  'docker.io/library/nginx': 80, 'docker.io/library/httpd': 80, 'gcr.io/google-samples/hello-app': 8080,
  'us-docker.pkg.dev/google-samples/containers/gke/hello-app': 8080, 'registry.k8s.io/echoserver': 8080,
};

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const requestCounts = new Map<string, number>();
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

/** What the pod answers to one HTTP request on `port`, printing what the image logs for it. */
export function simulatedHttp(pod: Pod, port: number, req: SimRequest, nowMs: number): SimReply {
  const c = listeningContainer(pod, port);
  if (!c) return { refused: true };
  const image = c.image ?? '';
  const name = pod.metadata?.name ?? '';
  const uid = pod.metadata?.uid ?? '';
  const host = pod.spec?.hostname ?? name;
  const repo = repositoryOf(image);
  if (isBootcamp(image)) {
    const key = `${uid}/${c.name}`;
    const n = (requestCounts.get(key) ?? 0) + 1;
    if (requestCounts.size >= maxCounted && !requestCounts.has(key)) requestCounts.clear();
    requestCounts.set(key, n);
    const started = pod.status?.containerStatuses?.find((s) => s.name === c.name)?.state?.running?.startedAt;
    const uptime = started ? Math.max(0, (nowMs - Date.parse(started)) / 1000) : 0;
    appendContainerLogByUid(uid, c.name, `Running On: ${host} | Total Requests: ${n} | App Uptime: ${uptime} seconds | Log Time: ${new Date(nowMs).toISOString()}`);
    const v = repo.startsWith('docker.io/jocatalin/') && tagOf(image) === 'v2' ? '2' : '1';
    return { status: 200, contentType: 'text/plain', body: `Hello Kubernetes bootcamp! | Running on: ${host} | v=${v}\n` };
  }
  if (repo === 'docker.io/library/nginx') {
    const path = req.path.split('?')[0];
    const ok = path === '/' || path === '/index.html';
    const body = ok
      ? '<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n<style>\nhtml { color-scheme: light dark; }\nbody { width: 35em; margin: 0 auto;\nfont-family: Tahoma, Verdana, Arial, sans-serif; }\n</style>\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n<p>If you see this page, the nginx web server is successfully installed and\nworking. Further configuration is required.</p>\n\n<p>For online documentation and support please refer to\n<a href="http://nginx.org/">nginx.org</a>.<br/>\nCommercial support is available at\n<a href="http://nginx.com/">nginx.com</a>.</p>\n\n<p><em>Thank you for using nginx.</em></p>\n</body>\n</html>\n'
      : '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.29.3</center>\r\n</body>\r\n</html>\r\n';
    const status = ok ? 200 : 404;
    const line = `${req.remoteAddr} - - [${nginxAccessTime(nowMs)}] "${req.method} ${req.path} HTTP/1.1" ${status} ${Buffer.byteLength(body)} "-" "${(req.userAgent ?? '-').replace(/"/g, '\\"')}" "-"`;
    appendContainerLogByUid(uid, c.name, line);
    return { status, contentType: 'text/html', body, server: 'nginx/1.29.3' };
  }
  if (repo.endsWith('/hello-app')) {
    return { status: 200, contentType: 'text/plain; charset=utf-8', body: `Hello, world!\nVersion: ${tagOf(image) === '2.0' ? '2.0.0' : '1.0.0'}\nHostname: ${host}\n` };
  }
  const body = `<!DOCTYPE html>\n<html><head><title>${esc(name)}</title></head><body>\n<h1>${esc(name)}</h1>\n<p>Pod ${esc(pod.metadata?.namespace ?? '')}/${esc(name)}, image ${esc(image)}, node ${esc(pod.spec?.nodeName ?? '')}, IP ${esc(pod.status?.podIP ?? '')}</p>\n</body></html>\n`;
  return { status: 200, contentType: 'text/html; charset=utf-8', body };
}
