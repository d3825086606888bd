// Parses a Kubernetes API path into group, version, namespace, resource, name and subresource.
import { ApiError } from '../machinery/errors.js';

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

/** `/api/v1/namespaces/default/pods/x/log`, `/apis/apps/v1/deployments`, `/api/v1/watch/pods`. */
export function parseRequestPath(path: string): RequestInfo | undefined {
  const parts = path.split('?')[0].split('/').filter((p) => p !== '').map(decodeURIComponent);
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
