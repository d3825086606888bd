// The events timeline, newest first, filterable by the object it is about (kind/name or any text).
import { useState } from 'preact/hooks';
import { rec, str, type Obj } from './model.js';
import { useWatched } from './collections.js';

function when(e: Obj): string {
  return str(e.lastTimestamp) || str(e.eventTime) || str(rec(e.metadata).creationTimestamp);
}

export function Events() {
  const [filter, setFilter] = useState('');
  const events = useWatched('/api/v1/events', 2000);
  const all = [...events.items.values()];
  const rows = all
    .map((e) => ({ e, obj: `${str(rec(e.involvedObject).kind)}/${str(rec(e.involvedObject).name)}`, t: when(e) }))
    .filter((r) => !filter || r.obj.toLowerCase().includes(filter.toLowerCase()) || str(r.e.message).toLowerCase().includes(filter.toLowerCase()))
    .sort((a, b) => (a.t < b.t ? 1 : a.t > b.t ? -1 : 0))
    .slice(0, 500);
  return (
    <div class="events">
      <input placeholder="filter by object, e.g. Pod/web or Node/bonsai-worker-1" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
      <table>
        <thead><tr><th>time</th><th>type</th><th>reason</th><th>object</th><th>message</th></tr></thead>
        <tbody>
          {rows.map(({ e, obj, t }) => (
            <tr class={e.type === 'Warning' ? 'warn' : ''} data-event-object={obj}>
              <td>{t.replace('T', ' ').replace('Z', '')}</td><td>{str(e.type)}</td><td>{str(e.reason)}</td>
              <td><a href="#" onClick={(ev) => { ev.preventDefault(); setFilter(obj); }}>{str(rec(e.involvedObject).namespace) ? `${str(rec(e.involvedObject).namespace)}/` : ''}{obj}</a></td>
              <td>{str(e.message)}{typeof e.count === 'number' && e.count > 1 ? ` (x${e.count})` : ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
