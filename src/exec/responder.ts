// The simulated HTTP server every pod runs: a small page naming the pod (so load balancing shows), 503 while the
// pod is not ready, nginx's welcome page for nginx, the tutorial app's greeting for kubernetes-bootcamp, and a
// `bonsai.dev/http-response` annotation that overrides it all.
import type { Pod } from '../generated/k8s/core/v1.js';
import { getOwn } from '../util/own.js';
import { nginxIndexHtml } from './nginx-files.js';

export const httpResponseAnnotation = 'bonsai.dev/http-response';

export interface HttpRequest {
  method: string;
  path: string;
  headers: Map<string, string>;
  body: Buffer;
}

export interface HttpResponse {
  status: number;
  headers: [string, string][];
  body: Buffer;
}

export const statusText: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 301: 'Moved Permanently', 302: 'Found', 304: 'Not Modified', 400: 'Bad Request',
  401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 408: 'Request Timeout', 411: 'Length Required', 413: 'Payload Too Large',
  418: "I'm a teapot", 429: 'Too Many Requests', 431: 'Request Header Fields Too Large', 500: 'Internal Server Error', 501: 'Not Implemented',
  502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout', 505: 'HTTP Version Not Supported',
};

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function isReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function repo(image: string): string {
  const noTag = image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
  const parts = noTag.split('/');
  return parts[parts.length - 1];
}

/** The annotation's override: `{"status": 200, "body": "...", "contentType": "text/plain"}` (invalid JSON is ignored). */
function override(pod: Pod): { status: number; body: string; contentType: string } | undefined {
  const raw = pod.metadata?.annotations ? getOwn(pod.metadata.annotations, httpResponseAnnotation) : undefined;
  if (typeof raw !== 'string' || raw.length > 65536) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const status = getOwn(v, 'status');
  const body = getOwn(v, 'body');
  const type = getOwn(v, 'contentType');
  return {
    status: typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599 ? status : 200,
    body: typeof body === 'string' ? body : '',
    contentType: typeof type === 'string' && /^[\x20-\x7e]{1,200}$/.test(type) ? type : 'text/plain; charset=utf-8',
  };
}

function page(pod: Pod, req: HttpRequest): { status: number; type: string; body: string; server?: string } {
  const image = pod.spec?.containers?.[0]?.image ?? '';
  const name = pod.metadata?.name ?? '';
  const r = repo(image);
  if (r === 'nginx') {
    if (req.path.split('?')[0] !== '/' && req.path.split('?')[0] !== '/index.html') {
      return { status: 404, type: 'text/html', server: 'nginx/1.29.3', body: '<html>\r\n<head><title>404 Not Found</title></head>\r\n<body>\r\n<center><h1>404 Not Found</h1></center>\r\n<hr><center>nginx/1.29.3</center>\r\n</body>\r\n</html>\r\n' };
    }
    // The image's own welcome page, with a comment naming the pod that served it (so load balancing shows).
    const mark = `<!-- served by pod ${esc(name)} (${esc(pod.status?.podIP ?? '')}) -->\n`;
    return { status: 200, type: 'text/html', server: 'nginx/1.29.3', body: nginxIndexHtml.replace('</body>', `${mark}</body>`) };
  }
  if (r === 'kubernetes-bootcamp') {
    const v = /:v(\d+)$/.exec(image)?.[1] ?? '1';
    return { status: 200, type: 'text/plain', body: `Hello Kubernetes bootcamp! | Running on: ${name} | v=${v}\n` };
  }
  const rows: [string, string][] = [
    ['pod', name], ['namespace', pod.metadata?.namespace ?? ''], ['image', image], ['node', pod.spec?.nodeName ?? ''], ['pod IP', pod.status?.podIP ?? ''],
  ];
  const text = req.headers.get('accept')?.includes('text/html') === true;
  if (!text) return { status: 200, type: 'text/plain; charset=utf-8', body: `${rows.map(([k, v]) => `${k}: ${v}`).join('\n')}\n` };
  return {
    status: 200, type: 'text/html; charset=utf-8',
    body: `<!DOCTYPE html>\n<html><head><title>${esc(name)}</title></head><body>\n<h1>Hello from ${esc(name)}</h1>\n<table>\n${rows.map(([k, v]) => `<tr><th>${k}</th><td>${esc(v)}</td></tr>`).join('\n')}\n</table>\n</body></html>\n`,
  };
}

/** The pod's answer to one request. */
export function respond(pod: Pod, req: HttpRequest, nowMs: number): HttpResponse {
  const headers: [string, string][] = [['Date', new Date(nowMs).toUTCString()]];
  const o = override(pod);
  let status: number;
  let type: string;
  let body: string;
  if (o) ({ status, contentType: type, body } = o);
  else if (!isReady(pod)) [status, type, body] = [503, 'text/plain; charset=utf-8', `pod ${pod.metadata?.name ?? ''} is not ready\n`];
  else {
    const p = page(pod, req);
    if (p.server) headers.unshift(['Server', p.server]);
    [status, type, body] = [p.status, p.type, p.body];
  }
  const buf = Buffer.from(body);
  headers.push(['Content-Type', type], ['Content-Length', String(buf.length)]);
  return { status, headers, body: req.method === 'HEAD' ? Buffer.alloc(0) : buf };
}
