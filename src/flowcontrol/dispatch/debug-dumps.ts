// /debug/api_priority_and_fairness/dump_priority_levels, dump_queues and dump_requests: upstream's three debug
// tables (a row per level, per queue, per waiting request), cells separated by "," and aligned as Go's tabwriter
// aligns them (minimum width 8, padding 1, spaces). They take no client data but `includeRequestDetails`.
import type { FastifyInstance } from 'fastify';
import type { FlowControl, LevelState } from './flow-control.js';

const base = '/debug/api_priority_and_fairness';

/** Go's tabwriter over rows of cells: every cell but a row's last is padded to its column's width. */
export function tabulate(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) {
    for (let i = 0; i < r.length - 1; i++) widths[i] = Math.max(widths[i] ?? 8, [...`${r[i]},`].length + 1);
  }
  return rows.map((r) => r.map((c, i) => (i < r.length - 1 ? `${c},`.padEnd(widths[i]) : c)).join('')).join('\n') + (rows.length ? '\n' : '');
}

/** Go's SeatSeconds text. */
const seatSeconds = (v: number) => `${v.toFixed(8)}ss`;

/** Go's time.RFC3339Nano in UTC: the fraction without trailing zeros. */
export function rfc3339Nano(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d*?)0*Z$/, (_m, f: string) => (f ? `.${f}Z` : 'Z'));
}

function sortedLevels(fc: FlowControl): LevelState[] {
  return [...fc.levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function dumpPriorityLevels(fc: FlowControl): string {
  const rows = [['PriorityLevelName', 'ActiveQueues', 'IsIdle', 'IsQuiescing', 'WaitingRequests', 'ExecutingRequests']];
  for (const l of sortedLevels(fc)) {
    const qs = l.queues;
    const active = qs.queues.filter((q) => q.waiting.length > 0).length;
    rows.push([l.name, String(active), String(qs.idle()), String(l.quiescing), String(qs.waitingCount), String(qs.executing)]);
  }
  return tabulate(rows);
}

export function dumpQueues(fc: FlowControl): string {
  const rows = [['PriorityLevelName', 'Index', 'PendingRequests', 'ExecutingRequests', 'SeatsInUse', 'NextDispatchR', 'InitialSeatsSum', 'MaxSeatsSum', 'TotalWorkSum']];
  for (const l of sortedLevels(fc)) {
    if (l.queues.config.exempt) {
      rows.push([l.name, ...new Array<string>(8).fill('<none>')]);
      continue;
    }
    for (const q of l.queues.queues) {
      const seats = q.waitingSeats();
      rows.push([l.name, String(q.index), String(q.waiting.length), String(q.executing), String(q.seatsInUse), seatSeconds(q.nextDispatchR), String(seats), String(seats), seatSeconds(seats * 0.003)]);
    }
  }
  return tabulate(rows);
}

export function dumpRequests(fc: FlowControl, details: boolean): string {
  const header = ['PriorityLevelName', 'FlowSchemaName', 'QueueIndex', 'RequestIndexInQueue', 'FlowDistingsher', 'ArriveTime', 'InitialSeats', 'FinalSeats', 'AdditionalLatency'];
  const rows = [details ? [...header, 'UserName', 'Verb', 'APIPath', 'Namespace', 'Name', 'APIVersion', 'Resource', 'SubResource'] : header];
  for (const l of sortedLevels(fc)) {
    for (const q of l.queues.queues) {
      q.waiting.forEach((t, i) => {
        const row = [l.name, t.flowSchema, String(q.index), String(i), t.distinguisher, rfc3339Nano(t.arrivedAt), String(t.seats), '0', '0s'];
        if (details) {
          const a = t.attrs;
          row.push(a.user.username, a.verb, a.path, a.namespace, a.name, a.apiGroup ? `${a.apiGroup}/${a.apiVersion}` : a.apiVersion, a.resource, a.subresource);
        }
        rows.push(row);
      });
    }
  }
  return tabulate(rows);
}

/** Serves the three dumps (authorized as non-resource URLs by the request chain). */
export function registerDebugDumps(app: FastifyInstance, fc: FlowControl): void {
  const text = (body: string) => ({ body, type: 'text/plain; charset=utf-8' });
  const routes: Array<[string, (q: Record<string, unknown>) => { body: string; type: string }]> = [
    ['dump_priority_levels', () => text(dumpPriorityLevels(fc))],
    ['dump_queues', () => text(dumpQueues(fc))],
    ['dump_requests', (q) => {
      const v: unknown = Array.isArray(q.includeRequestDetails) ? q.includeRequestDetails[0] : q.includeRequestDetails;
      return text(dumpRequests(fc, typeof v === 'string' && v.length > 0));
    }],
  ];
  for (const [name, render] of routes) {
    app.get(`${base}/${name}`, async (req, reply) => {
      const { body, type } = render((req.query ?? {}) as Record<string, unknown>);
      return reply.header('Content-Type', type).send(body);
    });
  }
}
