// Time travel's diff: what changed between two revisions (objects added, removed, fields changed), from the
// history's states at both (GET /bonsai/v1/history/state).
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { rec } from './model.js';
import { diffStates, maxFields, type ObjectDiff } from './diff.js';

const resources = 'nodes,pods,deployments,replicasets,statefulsets,daemonsets,jobs,cronjobs,services,configmaps';

const snapshot = async (rev: number) => rec(rec(await getJson(`/bonsai/v1/history/state?revision=${rev}&resources=${resources}`)).objects);

export function TravelDiff(props: { from: number; to: number; onClose(): void }) {
  const [diffs, setDiffs] = useState<ObjectDiff[] | undefined>();
  const [error, setError] = useState('');
  const [from, to] = props.from <= props.to ? [props.from, props.to] : [props.to, props.from];
  useEffect(() => {
    let live = true;
    setDiffs(undefined);
    setError('');
    Promise.all([snapshot(from), snapshot(to)]).then(([a, b]) => live && setDiffs(diffStates(a, b)), (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)));
    return () => {
      live = false;
    };
  }, [from, to]);
  const counts = { added: 0, removed: 0, changed: 0 };
  for (const d of diffs ?? []) counts[d.change]++;
  return (
    <div class="diff" data-diff={`${from}..${to}`} data-diff-ready={diffs ? 'true' : 'false'}>
      <button class="close" title="Hide the changes" onClick={props.onClose}>×</button>
      <b>Changes from revision {from} to {to}</b>{' '}
      {diffs ? <span class="muted">{counts.added} added · {counts.removed} removed · {counts.changed} changed</span> : error ? <span class="error">{error}</span> : <span class="muted">loading…</span>}
      <ul class="diff-list">
        {(diffs ?? []).slice(0, 300).map((d) => (
          <li class={`diff-${d.change}`} data-diff-object={d.id} data-change={d.change}>
            <span class="diff-mark">{d.change === 'added' ? '+' : d.change === 'removed' ? '−' : '~'}</span> {d.id}
            {d.fields.length ? (
              <ul class="diff-fields">
                {d.fields.slice(0, maxFields).map((f) => (
                  <li data-diff-field={f.path}><code>{f.path}</code>: {f.before === undefined ? <i>absent</i> : <code class="before">{f.before}</code>} → {f.after === undefined ? <i>absent</i> : <code class="after">{f.after}</code>}</li>
                ))}
                {d.fields.length > maxFields ? <li class="muted">more fields changed</li> : null}
              </ul>
            ) : null}
          </li>
        ))}
        {diffs && diffs.length > 300 ? <li class="muted">+{diffs.length - 300} more objects</li> : null}
      </ul>
    </div>
  );
}
