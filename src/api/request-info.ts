// Parses a Kubernetes API path into group, version, namespace, resource, name and subresource.
import { ApiError, badRequest } from '../machinery/errors.js';
import { isPathSegmentName } from '../machinery/names.js';
import { anonymousUser, type RequestAttributes, type UserInfo } from '../auth/types.js';

/**
 * A path within a served group that no route matches (an unknown resource, version or subresource): upstream's
 * router answers this Status, with empty details. Paths outside every served group are `404 page not found` in
 * plain text instead (see `notFoundFor` in not-found.ts).
 */
export const pathNotFound = () => new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
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
  const raw = url.split('?', 1)[0];
  // Clients repeat the same few paths: parsed ones are kept (a bounded number; never mutate what is returned).
  const known = parsedPaths.get(raw);
  if (known !== undefined) return known ?? undefined;
  const info = parsePath(raw);
  if (parsedPaths.size >= maxParsedPaths) parsedPaths.clear();
  parsedPaths.set(raw, info ?? null);
  return info;
}

const parsedPaths = new Map<string, Readonly<RequestInfo> | null>();
const maxParsedPaths = 512;

function parsePath(rawPath: string): RequestInfo | undefined {
  const path = decodeURIComponent(rawPath);
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
  // Only proxy takes a path after the subresource (`pods/x/proxy/some/path`).
  if (rest.length > 3 && rest[2] !== 'proxy') return undefined;
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

const nameTerm = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/;
const notInSegment = /[/%]/;

/** The name a list, watch or deletecollection is limited to by `fieldSelector=metadata.name=NAME` (upstream's RequestInfo). */
function nameFromFieldSelector(sel: string | null): string | undefined {
  if (!sel) return undefined;
  let name: string | undefined;
  for (const term of sel.split(',')) {
    const m = nameTerm.exec(term);
    if (m) name = m[1];
  }
  // Only a name usable as a path segment counts.
  return name && name !== '.' && name !== '..' && !notInSegment.test(name) ? name : undefined;
}

/** The path without what follows a subresource (`services/x/proxy/some/path`): those parts do not change the attributes. */
function attributePath(rawPath: string): string {
  const seg = rawPath.split('/');
  let i = 1;
  if (seg[i] === 'apis') i += 2;
  else if (seg[i] === 'api') i += 1;
  else return rawPath;
  i += 1; // the version
  if (seg[i] === 'watch') i += 1;
  if (seg[i] === 'namespaces' && seg.length > i + 2 && !(seg.length === i + 3 && (seg[i + 2] === 'status' || seg[i + 2] === 'finalize'))) i += 2;
  const end = i + 3; // resource, name, subresource
  return seg.length > end ? seg.slice(0, end).join('/') : rawPath;
}

/** A `/watch/` path, or a `watch` parameter that is not false (as Kubernetes converts query booleans). */
function isWatch(watchPath: boolean, param: (key: string) => string | null): boolean {
  if (watchPath) return true;
  const v = param('watch');
  return v !== null && v !== '0' && v.toLowerCase() !== 'false';
}

function decodedPath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/**
 * The authorization attributes of a request, as upstream's RequestInfoFactory derives them: resource requests get
 * the API verb (get, list, watch, create, update, patch, delete, deletecollection), anything else is a
 * non-resource request authorized by path and the lower-case HTTP method.
 */
export function requestAttributes(method: string, url: string, user: UserInfo): RequestAttributes {
  const qi = url.indexOf('?');
  const rawPath = qi < 0 ? url : url.slice(0, qi);
  let info: RequestInfo | undefined;
  try {
    info = parseRequestPath(attributePath(rawPath));
  } catch {
    info = undefined; // a malformed %-escape: not a resource request
  }
  if (!info || info.discovery || !info.resource) {
    return {
      user, verb: method.toLowerCase(), resourceRequest: false, path: decodedPath(rawPath), apiGroup: '', apiVersion: '', namespace: '',
      resource: '', subresource: '', name: '',
    };
  }
  // The query is parsed only for the verbs that read it (watch, and the fieldSelector of collections).
  let query: URLSearchParams | undefined;
  const param = (key: string) => (qi < 0 ? null : (query ??= new URLSearchParams(url.slice(qi + 1))).get(key));
  let verb: string;
  let name = info.name;
  switch (method) {
    case 'GET':
    case 'HEAD':
      verb = isWatch(info.watchPath, param) ? 'watch' : info.name === undefined ? 'list' : 'get';
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
  if (name === undefined && (verb === 'list' || verb === 'watch' || verb === 'deletecollection')) name = nameFromFieldSelector(param('fieldSelector'));
  // A namespace is addressed by its own name: `namespaces/foo` is in namespace foo for authorization.
  const namespace = info.namespace ?? (info.resource === 'namespaces' && info.name ? info.name : '');
  return {
    user, verb, resourceRequest: true, path: rawPath, apiGroup: info.group, apiVersion: info.version, namespace,
    resource: info.resource, subresource: info.subresource ?? '', name: name ?? '',
  };
}

const attributesKey = Symbol('bonsai.requestAttributes');

/**
 * A request's attributes, computed once and shared by the hooks that need them (metrics, audit, authorization); the
 * user is whoever the request was authenticated as when first asked (authorization sets it again).
 */
export function attributesOf(req: { method: string; url: string; user?: UserInfo | null }): RequestAttributes {
  const r = req as typeof req & { [attributesKey]?: RequestAttributes };
  return (r[attributesKey] ??= requestAttributes(req.method, req.url, req.user ?? anonymousUser));
}
