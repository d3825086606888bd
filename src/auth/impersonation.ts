// Impersonation headers (`kubectl --as`, `--as-group`, `--as-uid`), as upstream's WithImpersonation filter: each
// requested user, group, uid and extra value is authorized with the `impersonate` verb before the request acts as it.
import { badRequest } from '../machinery/errors.js';
import { forbiddenError } from './authorization.js';
import { serviceAccountGroups, serviceAccountUsername, splitServiceAccountUsername } from './identities.js';
import { anonymousUser, groups as wellKnown, type Authorizer, type RequestAttributes, type UserInfo } from './types.js';

const userHeader = 'impersonate-user';
const groupHeader = 'impersonate-group';
const uidHeader = 'impersonate-uid';
const extraPrefix = 'impersonate-extra-';
/** Headers a request may carry at most: more impersonation values than this is not a real client. */
const maxValues = 256;

interface Wanted {
  kind: 'User' | 'ServiceAccount' | 'Group' | 'UserExtra' | 'UID';
  name: string;
  namespace?: string;
  /** The extra key (UserExtra). */
  key?: string;
}

/** Impersonation headers by lower-case name, each value separately (repeated headers are not joined). */
const noHeaders: ReadonlyMap<string, string[]> = new Map();

export function impersonationHeaders(rawHeaders: readonly string[]): ReadonlyMap<string, string[]> {
  let out: Map<string, string[]> | undefined;
  let n = 0;
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const raw = rawHeaders[i];
    // Most headers are told apart by their first letter, without lower-casing them.
    if (raw.length < 12 || (raw.charCodeAt(0) | 0x20) !== 0x69) continue;
    const name = raw.toLowerCase();
    if (!name.startsWith('impersonate-')) continue;
    out ??= new Map();
    if (++n > maxValues) throw badRequest('too many impersonation headers');
    const list = out.get(name);
    if (list) list.push(rawHeaders[i + 1]);
    else out.set(name, [rawHeaders[i + 1]]);
  }
  return out ?? noHeaders;
}

function unescapeKey(k: string): string {
  try {
    return decodeURIComponent(k);
  } catch {
    return k;
  }
}

/** Go's %v of the ObjectReferences upstream builds, for its error text. */
function describe(list: Wanted[]): string {
  const ref = (w: Wanted) => {
    const apiVersion = w.kind === 'UID' || w.kind === 'UserExtra' ? 'authentication.k8s.io/v1' : '';
    return `{${[w.kind, w.namespace ?? '', w.name, '', apiVersion, '', w.key ?? ''].join(' ')}}`;
  };
  return `[${list.map(ref).join(' ')}]`;
}

function requested(headers: ReadonlyMap<string, string[]>): Wanted[] {
  const out: Wanted[] = [];
  const user = headers.get(userHeader)?.[0] ?? '';
  if (user) {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', name: sa.name, namespace: sa.namespace } : { kind: 'User', name: user });
  }
  for (const g of headers.get(groupHeader) ?? []) out.push({ kind: 'Group', name: g });
  for (const [name, values] of headers) {
    if (!name.startsWith(extraPrefix)) continue;
    const key = unescapeKey(name.slice(extraPrefix.length));
    for (const v of values) out.push({ kind: 'UserExtra', name: v, key });
  }
  const uid = headers.get(uidHeader)?.[0] ?? '';
  if (uid) out.push({ kind: 'UID', name: uid });
  if (out.length && !user) {
    // Upstream answers this with a 500; a client's mistake is a 400 here.
    throw badRequest(`requested ${describe(out)} without impersonating a user`);
  }
  return out;
}

function attributesFor(requestor: UserInfo, w: Wanted): RequestAttributes {
  const base: RequestAttributes = {
    user: requestor, verb: 'impersonate', resourceRequest: true, path: '', apiGroup: '', apiVersion: '', namespace: '',
    resource: '', subresource: '', name: w.name,
  };
  switch (w.kind) {
    case 'ServiceAccount':
      return { ...base, resource: 'serviceaccounts', namespace: w.namespace ?? '', apiVersion: 'v1' };
    case 'User':
      return { ...base, resource: 'users', apiVersion: 'v1' };
    case 'Group':
      return { ...base, resource: 'groups', apiVersion: 'v1' };
    case 'UserExtra':
      return { ...base, resource: 'userextras', subresource: w.key ?? '', apiGroup: 'authentication.k8s.io', apiVersion: 'v1' };
    case 'UID':
      return { ...base, resource: 'uids', apiGroup: 'authentication.k8s.io', apiVersion: 'v1' };
  }
}

/**
 * The user a request acts as: `requestor` itself when it asks for no impersonation, otherwise the impersonated
 * user once every part is authorized. Throws the 403 (or 400) the request must be answered with.
 */
export function impersonate(requestor: UserInfo, headers: ReadonlyMap<string, string[]>, authz: Authorizer): UserInfo {
  const wanted = requested(headers);
  if (!wanted.length) return requestor;
  const groupsGiven = (headers.get(groupHeader)?.length ?? 0) > 0;
  let username = '';
  let uid: string | undefined;
  let groups: string[] = [];
  const extra = new Map<string, string[]>();
  for (const w of wanted) {
    const attrs = attributesFor(requestor, w);
    const { decision, reason } = authz.authorize(attrs);
    if (decision !== 'allow') throw forbiddenError(attrs, reason);
    switch (w.kind) {
      case 'ServiceAccount':
        username = serviceAccountUsername(w.namespace ?? '', w.name);
        if (!groupsGiven) groups = serviceAccountGroups(w.namespace ?? '');
        break;
      case 'User':
        username = w.name;
        break;
      case 'Group':
        groups.push(w.name);
        break;
      case 'UserExtra': {
        const list = extra.get(w.key ?? '');
        if (list) list.push(w.name);
        else extra.set(w.key ?? '', [w.name]);
        break;
      }
      case 'UID':
        uid = w.name;
        break;
    }
  }
  if (username !== anonymousUser.username) {
    if (!groups.includes(wellKnown.authenticated) && !groups.includes(wellKnown.unauthenticated)) groups.push(wellKnown.authenticated);
  } else if (!groups.includes(wellKnown.unauthenticated)) groups.push(wellKnown.unauthenticated);
  const user: UserInfo = { username, groups };
  if (uid !== undefined) user.uid = uid;
  if (extra.size) {
    const byKey = Object.create(null) as Record<string, string[]>;
    for (const [k, v] of extra) byKey[k] = v;
    user.extra = byKey;
  }
  return user;
}
