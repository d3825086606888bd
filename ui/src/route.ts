// The dashboard's address: every view, selection and time-travel revision lives in the URL's hash, so a teacher
// can send "this pod's scheduling" or "revision 314". Forms:
//   #/map  #/map?node=N  #/scheduling/<ns>/<pod>  #/workloads?filter=web  #/events?object=Deployment/web
//   #/time-travel?rev=314[&diff=300][&node=N|&pod=<ns>/<pod>]
// User moves push a history entry (Back works); a replay's advancing revision replaces the current one.
import { useEffect, useState } from 'preact/hooks';

export type View = 'map' | 'workloads' | 'events';

export interface Route {
  view: View;
  node: string;
  /** `<ns>/<name>` */
  pod: string;
  /** The revision time travel shows; undefined: live. */
  rev?: number;
  /** The revision the time-travel diff compares `rev` with. */
  diff?: number;
  /** The workloads' or events' filter text. */
  filter: string;
}

const views: readonly string[] = ['map', 'workloads', 'events'];

const revision = (v: string | null): number | undefined => (v && /^\d{1,15}$/.test(v) ? Number(v) : undefined);

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#\/?/, '');
  const qi = h.indexOf('?');
  const path = (qi < 0 ? h : h.slice(0, qi)).split('/').map((s) => safeDecode(s));
  const q = new URLSearchParams(qi < 0 ? '' : h.slice(qi + 1));
  const r: Route = { view: 'map', node: q.get('node') ?? '', pod: q.get('pod') ?? '', filter: q.get('filter') ?? q.get('object') ?? '' };
  const head = path[0] ?? '';
  if (head === 'scheduling' && path[1] && path[2]) r.pod = `${path[1]}/${path[2]}`;
  else if (head === 'time-travel') {
    r.rev = revision(q.get('rev')) ?? 0;
    r.diff = revision(q.get('diff'));
  } else if (views.includes(head)) r.view = head as View;
  if (r.view !== 'map') {
    r.node = '';
    r.pod = '';
  }
  if (r.pod) r.node = '';
  return r;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export function formatRoute(r: Route): string {
  const q = new URLSearchParams();
  if (r.view === 'map' && r.rev !== undefined) {
    q.set('rev', String(r.rev));
    if (r.diff !== undefined) q.set('diff', String(r.diff));
    if (r.node) q.set('node', r.node);
    if (r.pod) q.set('pod', r.pod);
    return `#/time-travel?${q.toString()}`;
  }
  if (r.view === 'map' && r.pod) {
    const [ns = '', name = ''] = r.pod.split('/');
    return `#/scheduling/${encodeURIComponent(ns)}/${encodeURIComponent(name)}`;
  }
  if (r.view === 'map' && r.node) q.set('node', r.node);
  if (r.view === 'workloads' && r.filter) q.set('filter', r.filter);
  if (r.view === 'events' && r.filter) q.set('object', r.filter);
  const qs = q.toString();
  return `#/${r.view}${qs ? `?${qs}` : ''}`;
}

const listeners = new Set<() => void>();
const notify = () => {
  for (const fn of listeners) fn();
};
window.addEventListener('popstate', notify);
window.addEventListener('hashchange', notify);

/** Goes to a route: a new history entry, or (replace) the current one changed. */
export function navigate(r: Route, replace = false): void {
  const hash = formatRoute(r);
  if (hash === location.hash) return;
  if (replace) history.replaceState(null, '', hash);
  else history.pushState(null, '', hash);
  notify();
}

/** The current route, re-rendering the caller when the address changes. */
export function useRoute(): Route {
  const [, setTick] = useState(0);
  useEffect(() => {
    const fn = () => setTick((t) => t + 1);
    listeners.add(fn);
    return () => {
      listeners.delete(fn);
    };
  }, []);
  return parseRoute(location.hash);
}
