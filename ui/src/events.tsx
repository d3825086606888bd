// The events timeline, newest first, filterable by the object it is about (kind/name or any text). Times read as
// kubectl's AGE against the simulated clock; the full local time shows on hover.
import { rec, str, type Obj } from './model.js';
import { useWatched } from './collections.js';
import { age, localTime, useClock } from './sim-clock.js';

function when(e: Obj): string {
  return str(e.lastTimestamp) || str(e.eventTime) || str(rec(e.metadata).creationTimestamp);
}

export function Events(props: { filter: string; onFilter(text: string, push: boolean): void }) {
  const { filter } = props;
  const events = useWatched('/api/v1/events', 2000);
  useClock(5000);
  const all = [...events.items.values()];
  const rows = all
    .map((e) => ({ e, obj: `${str(rec(e.involvedObject).kind)}/${str(rec(e.involvedObject).name)}`, t: when(e) }))
    .filter((r) => !filter || r.obj.toLowerCase().includes(filter.toLowerCase()) || str(r.e.message).toLowerCase().includes(filter.toLowerCase()))
    .sort((a, b) => (a.t < b.t ? 1 : a.t > b.t ? -1 : 0))
    .slice(0, 500);
  return (
    <div class="events">
      <input placeholder="filter by object, e.g. Pod/web or Node/bonsai-worker-1" value={filter} onInput={(e) => props.onFilter((e.target as HTMLInputElement).value, false)} />
      <table>
        <thead><tr><th class="age" title="Since the event last happened, in simulated time (as kubectl's LAST SEEN)">age</th><th>type</th><th>reason</th><th>object</th><th>message</th></tr></thead>
        <tbody>
          {rows.map(({ e, obj, t }) => {
            const ms = Date.parse(t);
            return (
              <tr class={e.type === 'Warning' ? 'warn' : ''} data-event-object={obj}>
                <td class="age" title={Number.isFinite(ms) ? localTime(ms) : t}>{Number.isFinite(ms) ? age(ms) : ''}</td><td>{str(e.type)}</td><td>{str(e.reason)}</td>
                <td><a href="#" onClick={(ev) => { ev.preventDefault(); props.onFilter(obj, true); }}>{str(rec(e.involvedObject).namespace) ? `${str(rec(e.involvedObject).namespace)}/` : ''}{obj}</a></td>
                <td>{str(e.message)}{typeof e.count === 'number' && e.count > 1 ? ` (x${e.count})` : ''}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
