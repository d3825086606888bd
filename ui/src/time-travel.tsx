// Time travel: a slider over the change log, oldest revision not yet compacted to newest. The map then shows the
// cluster as it was (GET /bonsai/v1/history/state), and play replays forward with /bonsai/v1/history/changes at the
// chosen speed; nodes and pods, and the ResourceSlices and ResourceClaims the map's GPU bars and the node panel's
// devices show. The revision is in the address (#/time-travel?rev=N), so it can be sent and restored; the diff
// against a second revision too (&diff=M; hidden while replaying). The API stays live meanwhile; leaving returns the map to the live watch.
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, getJsonQuietly } from './api.js';
import { navigate, parseRoute, type Route } from './route.js';
import { localTime } from './sim-clock.js';
import { TravelDiff } from './travel-diff.js';
import { arr, ClusterState, rec, str, type Obj, type WatchEvent } from './model.js';

export interface Travel {
  state: ClusterState;
  revision: number;
  time: string;
  /** The resources the state holds (and replay follows). */
  resources: string;
}

const mapResources = 'nodes,pods';
/** The devices and the claims holding them, for the node panel's devices and the map's GPU bar. */
const withDevices = `${mapResources},resourceslices.resource.k8s.io,resourceclaims.resource.k8s.io`;
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN);

async function stateAt(revision: number): Promise<Travel> {
  // Without resource.k8s.io (not served, or not listable by this user) the map travels without devices.
  let resources = withDevices;
  const path = () => `/bonsai/v1/history/state?revision=${revision}&resources=${resources}`;
  const body = rec(await getJsonQuietly(path()).catch(() => {
    resources = mapResources;
    return getJson(path());
  }));
  const objects = rec(body.objects);
  const state = new ClusterState();
  state.resetNodes(arr(objects.nodes).map(rec));
  state.resetPods(arr(objects.pods).map(rec));
  state.resetSlices(arr(objects['resourceslices.resource.k8s.io']).map(rec));
  state.resetClaims(arr(objects['resourceclaims.resource.k8s.io']).map(rec));
  return { state, revision: num(body.revision) || revision, time: str(body.time), resources };
}

const kindOfResource = new Map([
  ['nodes', 'Node'], ['pods', 'Pod'], ['resourceslices.resource.k8s.io', 'ResourceSlice'], ['resourceclaims.resource.k8s.io', 'ResourceClaim'],
]);

/** Applies the changes after `from` up to `to` (paged) to the state. */
async function replay(t: Travel, to: number): Promise<string> {
  const { state } = t;
  let cont = '';
  let time = '';
  for (let page = 0; page < 100; page++) {
    const body = rec(await getJson(`/bonsai/v1/history/changes?from=${t.revision}&to=${to}&resources=${t.resources}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`));
    const items = arr(body.changes ?? body.items).map(rec);
    const byKind = new Map<string, WatchEvent[]>();
    for (const c of items) {
      const object = rec(c.object);
      const kind = str(object.kind) || kindOfResource.get(str(c.resource)) || '';
      let evs = byKind.get(kind);
      if (!evs) byKind.set(kind, (evs = []));
      evs.push({ type: str(c.type), object });
      if (c.time) time = str(c.time);
    }
    const of = (kind: string) => byKind.get(kind) ?? [];
    if (of('Node').length) state.applyNodes(of('Node'));
    if (of('Pod').length) state.applyPods(of('Pod'));
    if (of('ResourceSlice').length) state.applySlices(of('ResourceSlice'));
    if (of('ResourceClaim').length) state.applyClaims(of('ResourceClaim'));
    cont = str(body.continue ?? rec(body.metadata).continue);
    if (!cont) break;
  }
  return time;
}

type Range = { oldest: number; newest: number };

async function bounds(): Promise<Range> {
  const h = rec(await getJson('/bonsai/v1/history'));
  const r = { oldest: num(h.oldest), newest: num(h.newest) };
  if (!Number.isFinite(r.oldest) || !Number.isFinite(r.newest)) throw new Error('no history');
  return r;
}

const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The state at the route's revision, loaded when the revision changes (0: the newest). */
export function useTravel(rev: number | undefined): { travel: Travel | undefined; replayed(t: Travel): void; error: string } {
  const [travel, setTravel] = useState<Travel | undefined>();
  const [error, setError] = useState('');
  const current = useRef(travel);
  current.current = travel;
  useEffect(() => {
    setError('');
    if (rev === undefined) return setTravel(undefined);
    if (current.current?.revision === rev) return;
    let live = true;
    const load = rev ? stateAt(rev) : bounds().then((r) => stateAt(r.newest));
    load.then((t) => {
      if (!live) return;
      setTravel(t);
      if (!rev) navigate({ ...parseRoute(location.hash), rev: t.revision }, true);
    }, (e: unknown) => live && setError(message(e)));
    return () => {
      live = false;
    };
  }, [rev]);
  return { travel: rev === undefined ? undefined : travel, replayed: setTravel, error };
}

export function TimeTravelBar(props: { route: Route; travel: Travel | undefined; error: string; onReplay(t: Travel): void }) {
  const { route } = props;
  const [range, setRange] = useState<Range | undefined>();
  const [target, setTarget] = useState(route.rev ?? 0);
  const [error, setError] = useState('');
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(5);
  const [diffFrom, setDiffFrom] = useState('');
  const travelRef = useRef(props.travel);
  travelRef.current = props.travel;
  const busy = useRef(false);
  const travelling = route.rev !== undefined;
  const refresh = () => bounds().then(setRange, (e: unknown) => setError(message(e)));

  useEffect(() => {
    if (!travelling) {
      setPlaying(false);
      setRange(undefined);
      return;
    }
    void refresh();
  }, [travelling]);
  useEffect(() => {
    if (route.rev) setTarget(route.rev);
  }, [route.rev]);

  // Play: every 250 ms replay `speed` revisions forward from where the map is.
  useEffect(() => {
    if (!playing || !range) return;
    const t = setInterval(() => {
      const cur = travelRef.current;
      if (!cur || busy.current) return;
      const to = Math.min(range.newest, cur.revision + speed);
      if (to <= cur.revision) return setPlaying(false);
      busy.current = true;
      replay(cur, to)
        .then((time) => {
          props.onReplay({ ...cur, revision: to, time: time || cur.time });
          navigate({ ...parseRoute(location.hash), rev: to }, true);
        }, (e: unknown) => {
          setError(message(e));
          setPlaying(false);
        })
        .finally(() => (busy.current = false));
    }, 250);
    return () => clearInterval(t);
  }, [playing, range, speed]);

  if (!travelling) {
    return (
      <div class="travel">
        <button data-action="time-travel" title="Show the cluster as it was at an earlier revision, and what changed since" onClick={() => bounds().then((r) => navigate({ ...route, view: 'map', rev: r.newest }), (e: unknown) => setError(message(e)))}>Time travel</button>
        {error ? <span class="error"> {error}</span> : null}
      </div>
    );
  }
  const shown = props.travel?.revision ?? target;
  const ms = props.travel?.time ? Date.parse(props.travel.time) : NaN;
  return (
    <>
      <div class="travel active" data-revision={props.travel?.revision ?? ''}>
        <b>Time travel</b>
        {range ? (
          <input type="range" class="timeline" min={range.oldest} max={range.newest} value={target} title="Drag to a revision"
            onInput={(e) => setTarget(Number((e.target as HTMLInputElement).value))}
            onChange={(e) => navigate({ ...route, rev: Number((e.target as HTMLInputElement).value) })} />
        ) : <span class="timeline" />}
        <span title={props.travel?.time ?? ''}>revision {shown}{Number.isFinite(ms) ? ` · ${localTime(ms)}` : ''}</span>
        <button data-action="play" title="Replay the changes forward from this revision" onClick={() => setPlaying(!playing)}>{playing ? 'Pause' : 'Play'}</button>
        <label title="How many revisions each replay step (four a second) moves forward">
          Replay <select value={String(speed)} onChange={(e) => setSpeed(Number((e.target as HTMLSelectElement).value))}>
            {[1, 5, 20, 100].map((s) => <option value={String(s)}>{s}</option>)}
          </select> rev/step
        </label>
        <button data-action="refresh-history" title="Take in revisions written since" onClick={() => void refresh()}>↻ newest</button>
        <label title="List what changed between that revision and this one: objects added, removed, fields changed">
          Changes since revision <input class="diff-from" size={6} value={diffFrom} placeholder={range ? String(range.oldest) : ''} onInput={(e) => setDiffFrom((e.target as HTMLInputElement).value)} />
        </label>
        <button data-action="diff" onClick={() => navigate({ ...route, diff: /^\d+$/.test(diffFrom) ? Number(diffFrom) : range?.oldest ?? 0 })}>Show changes</button>
        <button data-action="leave-travel" title="Back to the live cluster" onClick={() => navigate({ ...route, rev: undefined, diff: undefined })}>Back to live</button>
        {error || props.error ? <span class="error"> {error || props.error}</span> : null}
      </div>
      {route.diff !== undefined && props.travel && !playing ? <TravelDiff from={route.diff} to={props.travel.revision} onClose={() => navigate({ ...route, diff: undefined })} /> : null}
    </>
  );
}
