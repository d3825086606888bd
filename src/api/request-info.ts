// Parses a Kubernetes API path into group, version, namespace, resource, name and subresource.
import { ApiError, badRequest } from '../machinery/errors.js';
import type { RequestAttributes, UserInfo } from '../auth/types.js';
import { isPathSegmentName } from '../registry/validation/names.js';

/**
 * A path no API serves (unknown group, version or resource): kube-apiserver answers `404 page not found`, which
 * client-go reports as this Status.
 */
export const pathNotFound = () => new ApiError(404, 'NotFound', 'the server could not find the requested resource', {
  causes: [{ reason: 'UnexpectedServerResponse', message: '404 page not found' }],
});
export interface RequestInfo {
  group: string;
  version: string;
  namespace?: string;
  resource?: string;
  name?: string;
  subresource?: string;
  /** Legacy `/watch/` path prefix. */
  watchPath: boolean;
  /** Path addressed only the group or version (discovery). */
  discovery: boolean;
}

/**
 * `/api/v1/namespaces/default/pods/x/log`, `/apis/apps/v1/deployments`, `/api/v1/watch/pods`. As Go serves
 * `URL.Path`, the path is unescaped before it is split (`%2F` separates segments). An empty segment
 * (`/api//v1`) addresses nothing, as upstream's router finds no route for it; one trailing slash is ignored.
 */
export function parseRequestPath(url: string): RequestInfo | undefined {
  const path = decodeURIComponent(url.split('?')[0]);
  const parts = path.split('/');
  if (parts[0] !== '') return undefined;
  parts.shift();
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.some((p) => p === '')) return undefined;
  let i = 0;
  let group = '';
  if (parts[i] === 'api') i++;
  else if (parts[i] === 'apis') {
    i++;
    group = parts[i++] ?? '';
    if (!group) return undefined;
  } else return undefined;
  const version = parts[i++];
  if (!version) return { group, version: '', watchPath: false, discovery: true };
  const info: RequestInfo = { group, version, watchPath: false, discovery: false };
  let rest = parts.slice(i);
  if (rest[0] === 'watch') {
    info.watchPath = true;
    rest = rest.slice(1);
  }
  if (rest.length === 0) {
    info.discovery = true;
    return info;
  }
  // namespaces/<ns>/<resource>... addresses namespaced resources; namespaces[/<name>[/sub]] is the namespace itself,
  // with its subresources status and finalize (as upstream's RequestInfoFactory).
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) {
    info.namespace = rest[1];
    rest = rest.slice(2);
  }
  info.resource = rest[0];
  info.name = rest[1];
  info.subresource = rest[2];
  if (rest.length > 3) return undefined;
  return info;
}

/** The registry's key functions refuse `.`, `..` and names holding `/` or `%` before any storage is read. */
export function checkPathSegments(info: RequestInfo): void {
  for (const segment of [info.namespace, info.name]) {
    if (segment === undefined) continue;
    const problems = isPathSegmentName(segment);
    if (problems.length) throw badRequest(`Name parameter invalid: ${JSON.stringify(segment)}: ${problems.join(';')}`);
  }
}

/**
 * The authorization attributes of a request, as upstream's RequestInfoFactory derives them: resource requests get
 * the API verb (get, list, watch, create, update, patch, delete, deletecollection), anything else is a
 * non-resource request authorized by path and the lower-case HTTP method.
 */
export function requestAttributes(method: string, url: string, user: UserInfo): RequestAttributes {
  const qi = url.indexOf('?');
  const path = qi < 0 ? url : url.slice(0, qi);
  let info: RequestInfo | undefined;
  try {
    info = parseRequestPath(path);
  } catch {
    info = undefined; // a malformed %-escape: not a resource request
  }
  const base = { user, path, apiGroup: '', apiVersion: '', namespace: '', resource: '', subresource: '', name: '' };
  if (!info || info.discovery || !info.resource) return { ...base, verb: method.toLowerCase(), resourceRequest: false };
  const watchParam = qi < 0 ? null : new URLSearchParams(url.slice(qi + 1)).get('watch');
  const watch = info.watchPath || (watchParam !== null && watchParam !== '0' && watchParam.toLowerCase() !== 'false');
  let verb: string;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = watch ? 'watch' : info.name === undefined ? 'list' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = info.name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      verb = method.toLowerCase();
  }
  // A namespace is addressed by its own name: `namespaces/foo` is in namespace foo for authorization.
  const namespace = info.namespace ?? (info.group === '' && info.resource === 'namespaces' && info.name ? info.name : '');
  return {
    ...base, verb, resourceRequest: true, apiGroup: info.group, apiVersion: info.version, namespace,
    resource: info.resource, subresource: info.subresource ?? '', name: info.name ?? '',
  };
}
