// Requests to the ordinary Kubernetes API from the browser, same origin. Anonymous by default; a bearer token only
// when the user pastes one (kept for the tab's session). 401 and 403 answers are reported to the auth banner.
export class ApiFailure extends Error {
  /** `stale`: the request carried a token other than the current one (it was sent before the token changed). */
  constructor(readonly status: number, message: string, readonly reason = '', readonly stale = false) {
    super(message);
  }
}

type Listener = (failure: ApiFailure | undefined) => void;
const authListeners = new Set<Listener>();
let token = safeSession('get') ?? '';

function safeSession(op: 'get' | 'set', value?: string): string | undefined {
  try {
    if (op === 'get') return sessionStorage.getItem('bonsai-token') ?? undefined;
    if (value) sessionStorage.setItem('bonsai-token', value);
    else sessionStorage.removeItem('bonsai-token');
  } catch {
    // storage may be off: the token then lives in memory only
  }
  return undefined;
}

export function currentToken(): string {
  return token;
}
export function setToken(t: string): void {
  token = t.trim();
  safeSession('set', token);
  reportAuth(undefined);
}
export function onAuthProblem(fn: Listener): () => void {
  authListeners.add(fn);
  return () => authListeners.delete(fn);
}
function reportAuth(f: ApiFailure | undefined): void {
  for (const fn of authListeners) fn(f);
}

export function headers(extra: Record<string, string> = {}): Record<string, string> {
  const h: Record<string, string> = { Accept: 'application/json', ...extra };
  if (token) h.Authorization = `Bearer ${token}`;
  return h;
}

/** Adds pretty=false: the server indents JSON for browser user agents otherwise. */
export function apiUrl(path: string): string {
  return `${path}${path.includes('?') ? '&' : '?'}pretty=false`;
}

/**
 * The failure an answer carries; 401 and 403 go to the auth banner unless `quiet` (a view that can do without) or
 * the request carried a token other than the current one (`sent`: answered after a new token was pasted, it says
 * nothing about the new one).
 */
export async function failureOf(res: Response, quiet = false, sent = token): Promise<ApiFailure> {
  let message = `${res.status} ${res.statusText}`;
  let reason = '';
  try {
    const body: unknown = await res.json();
    if (body && typeof body === 'object') {
      const b = body as { message?: unknown; reason?: unknown };
      if (typeof b.message === 'string') message = b.message;
      if (typeof b.reason === 'string') reason = b.reason;
    }
  } catch {
    // not a Status
  }
  const f = new ApiFailure(res.status, message, reason, sent !== token);
  if (!quiet && !f.stale && (res.status === 401 || res.status === 403)) reportAuth(f);
  return f;
}

export async function request<T = unknown>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
  const sent = token;
  const res = await fetch(apiUrl(path), {
    method,
    headers: headers(body === undefined ? {} : { 'Content-Type': contentType }),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!res.ok) throw await failureOf(res, false, sent);
  return (await res.json()) as T;
}

export const getJson = <T = unknown>(path: string): Promise<T> => request<T>('GET', path);
export const mergePatch = <T = unknown>(path: string, body: unknown): Promise<T> => request<T>('PATCH', path, body, 'application/merge-patch+json');

/** A GET whose 401 or 403 goes to the caller only (a view that can do without), not to the auth banner. */
export async function getJsonQuietly<T = unknown>(path: string): Promise<T> {
  const res = await fetch(apiUrl(path), { headers: headers() });
  if (!res.ok) throw await failureOf(res, true);
  return (await res.json()) as T;
}
