// Time travel: a slider over the change log, oldest revision not yet compacted to newest. The map then shows the
// cluster as it was (GET /bonsai/v1/history/state), and play replays forward with /bonsai/v1/history/changes at the
// chosen speed. The API stays live meanwhile; leaving returns the map to the live watch.
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { arr, ClusterState, rec, str, type Obj, type WatchEvent } from './model.js';

export interface Travel {
  state: ClusterState;
  revision: number;
  time: string;
}

const resources = 'nodes,pods';
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN);

async function stateAt(revision: number): Promise<Travel> {
  const body = rec(await getJson(`/bonsai/v1/history/state?revision=${revision}&resources=${resources}`));
  const objects = rec(body.objects);
  const state = new ClusterState();
  state.resetNodes(arr(objects.nodes).map(rec));
  state.resetPods(arr(objects.pods).map(rec));
  return { state, revision: num(body.revision) || revision, time: str(body.time) };
}

/** Applies the changes after `from` up to `to` (paged) to the state. */
async function replay(state: ClusterState, from: number, to: number): Promise<string> {
  let cont = '';
  let time = '';
  for (let page = 0; page < 100; page++) {
    const body = rec(await getJson(`/bonsai/v1/history/changes?from=${from}&to=${to}&resources=${resources}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`));
    const items = arr(body.changes ?? body.items).map(rec);
    const nodes: WatchEvent[] = [];
    const pods: WatchEvent[] = [];
    for (const c of items) {
      const object = rec(c.object);
      const kind = str(object.kind) || (c.resource === 'nodes' ? 'Node' : c.resource === 'pods' ? 'Pod' : '');
      const ev = { type: str(c.type), object };
      if (kind === 'Node') nodes.push(ev);
      else if (kind === 'Pod') pods.push(ev);
      if (c.time) time = str(c.time);
    }
    if (nodes.length) state.applyNodes(nodes);
    if (pods.length) state.applyPods(pods);
    cont = str(body.continue ?? rec(body.metadata).continue);
    if (!cont) break;
  }
  return time;
}

export function TimeTravelBar(props: { travel: Travel | undefined; onTravel(t: Travel | undefined): void }) {
  const [range, setRange] = useState<{ oldest: number; newest: number } | undefined>();
  const [target, setTarget] = useState(0);
  const [error, setError] = useState('');
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(5);
  const travelRef = useRef(props.travel);
  travelRef.current = props.travel;
  const busy = useRef(false);

  const enter = async () => {
    setError('');
    try {
      const h = rec(await getJson('/bonsai/v1/history'));
      const r = { oldest: num(h.oldest), newest: num(h.newest) };
      if (!Number.isFinite(r.oldest) || !Number.isFinite(r.newest)) throw new Error('no history');
      setRange(r);
      setTarget(r.newest);
      props.onTravel(await stateAt(r.newest));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const leave = () => {
    setPlaying(false);
    setRange(undefined);
    props.onTravel(undefined);
  };
  const jump = (rev: number) => {
    setTarget(rev);
    busy.current = true;
    stateAt(rev).then((t) => props.onTravel(t), (e: unknown) => setError(e instanceof Error ? e.message : String(e))).finally(() => (busy.current = false));
  };

  // Play: every 250 ms replay `speed` revisions forward from where the map is.
  useEffect(() => {
    if (!playing || !range) return;
    const t = setInterval(() => {
      const cur = travelRef.current;
      if (!cur || busy.current) return;
      const to = Math.min(range.newest, cur.revision + speed);
      if (to <= cur.revision) return setPlaying(false);
      busy.current = true;
      replay(cur.state, cur.revision, to)
        .then((time) => {
          setTarget(to);
          props.onTravel({ state: cur.state, revision: to, time: time || cur.time });
        }, (e: unknown) => {
          setError(e instanceof Error ? e.message : String(e));
          setPlaying(false);
        })
        .finally(() => (busy.current = false));
    }, 250);
    return () => clearInterval(t);
  }, [playing, range, speed]);

  if (!range) {
    return (
      <div class="travel">
        <button data-action="time-travel" onClick={() => void enter()}>Time travel</button>
        {error ? <span class="error"> {error}</span> : null}
      </div>
    );
  }
  return (
    <div class="travel active" data-revision={props.travel?.revision ?? ''}>
      <b>Time travel</b>
      <input type="range" class="timeline" min={range.oldest} max={range.newest} value={target}
        onInput={(e) => setTarget(Number((e.target as HTMLInputElement).value))}
        onChange={(e) => jump(Number((e.target as HTMLInputElement).value))} />
      <span>revision {props.travel?.revision ?? target} · {props.travel?.time ?? ''}</span>
      <button data-action="play" onClick={() => setPlaying(!playing)}>{playing ? 'Pause' : 'Play'}</button>
      <select value={String(speed)} onChange={(e) => setSpeed(Number((e.target as HTMLSelectElement).value))}>
        {[1, 5, 20, 100].map((s) => <option value={String(s)}>{s} rev/tick</option>)}
      </select>
      <button data-action="refresh-history" onClick={() => void getJson('/bonsai/v1/history').then((h) => setRange({ oldest: num(rec(h).oldest), newest: num(rec(h).newest) }))}>↻</button>
      <button data-action="leave-travel" onClick={leave}>Back to live</button>
      {error ? <span class="error"> {error}</span> : null}
    </div>
  );
}
