// Scheduling explained for one pod: the decision the scheduler kept (GET /bonsai/v1/scheduling/...): for each node
// the filter that rejected it and why, or the score each plugin gave it.
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, getJson } from './api.js';
import { arr, rec, str, type Obj } from './model.js';
import { localTime } from './sim-clock.js';

interface NodeVerdict {
  node: string;
  feasible: boolean;
  plugin: string;
  reasons: string[];
  /** Beyond the reasons: e.g. each claim request a node could not meet. */
  details: string[];
  scores: [string, number][];
  total: number | undefined;
}

function verdicts(body: Obj): NodeVerdict[] {
  return arr(body.nodes).map(rec).map((n) => {
    const filter = rec(n.filter);
    return {
      node: str(n.node), feasible: n.feasible === true, plugin: str(filter.plugin), reasons: arr(filter.reasons).map(str), details: arr(filter.details).map(str),
      scores: Object.entries(rec(n.scores)).filter((e): e is [string, number] => typeof e[1] === 'number'),
      total: typeof n.total === 'number' ? n.total : undefined,
    };
  });
}

export function SchedulingExplained(props: { ns: string; name: string; refresh: string }) {
  const [body, setBody] = useState<Obj | undefined>();
  const [error, setError] = useState('');
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    setError('');
    // The scheduler may not have tried the pod yet: a missing decision is asked for again a few times.
    const load = (tries: number) => {
      getJson<Obj>(`/bonsai/v1/scheduling/namespaces/${encodeURIComponent(props.ns)}/pods/${encodeURIComponent(props.name)}`)
        .then((b) => live && setBody(rec(b)), (e: unknown) => {
          if (!live) return;
          setBody(undefined);
          setError(e instanceof Error ? e.message : String(e));
          if (tries > 0 && e instanceof ApiFailure && e.status === 404) timer = setTimeout(() => load(tries - 1), 1000);
        });
    };
    load(5);
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [props.ns, props.name, props.refresh]);
  if (error) return <div class="explain muted" data-explain="none">Scheduling: {error}</div>;
  if (!body) return <div class="explain muted">Scheduling: loading…</div>;
  const rows = verdicts(body);
  const plugins = [...new Set(rows.flatMap((r) => r.scores.map(([p]) => p)))];
  const chosen = str(body.node);
  return (
    <div class="explain" data-explain={str(body.result)}>
      <h4>Scheduling explained</h4>
      <p><b>{str(body.result)}</b>{chosen ? <> on <b>{chosen}</b></> : null} · attempt {String(body.attempts ?? '?')} · <span title={str(body.time)}>{Number.isFinite(Date.parse(str(body.time))) ? localTime(Date.parse(str(body.time))) : str(body.time)}</span></p>
      {body.message ? <p class="muted">{str(body.message)}</p> : null}
      <table class="explain-table">
        <thead><tr><th>node</th><th>verdict</th>{plugins.map((p) => <th>{p}</th>)}<th>total</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr data-explain-node={r.node} class={r.node === chosen ? 'chosen' : r.feasible ? '' : 'rejected'}>
              <td>{r.node}</td>
              <td>{r.feasible ? 'feasible' : <><span class="plugin">{r.plugin}</span>: <span class="reasons">{r.reasons.join('; ')}</span>{r.details.map((d) => <div class="muted details">{d}</div>)}</>}</td>
              {plugins.map((p) => <td class="num">{r.scores.find(([q]) => q === p)?.[1] ?? ''}</td>)}
              <td class="num">{r.total ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
