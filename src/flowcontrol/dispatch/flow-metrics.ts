// kube-apiserver's apiserver_flowcontrol_* metrics, with upstream's names, help texts, labels and buckets. Counted
// in plain maps keyed by flow schema and priority level (names of stored objects, so bounded by them); rendered by
// prom-client through RequestMetrics.
import { exposed, histogramValues, type Exposed, type MetricValue } from '../../api/request-metrics.js';
import type { QueueSetObserver, RejectReason, Ticket } from './queue-set.js';

/** Upstream's buckets for apiserver_flowcontrol_request_wait_duration_seconds. */
const waitBuckets = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30];
/** Label sets kept at most (a flood of configuration changes cannot grow the maps without bound). */
const maxSeries = 20_000;

interface Histogram { buckets: number[]; sum: number; count: number }

class Series<T> {
  readonly map = new Map<string, { labels: string[]; v: T }>();
  constructor(private readonly init: () => T) {}
  at(labels: string[]): { labels: string[]; v: T } | undefined {
    const k = labels.join('\0');
    let e = this.map.get(k);
    if (!e) {
      if (this.map.size >= maxSeries) return undefined;
      this.map.set(k, (e = { labels, v: this.init() }));
    }
    return e;
  }
}

const flowLabels = (l: string[]) => ({ flow_schema: l[0], priority_level: l[1] });

/** The gauges and counters of one flow schema and priority level, found once per request. */
/** `queued`: a request of the flow has waited in a queue (upstream's in-queue gauge exists only from then). */
interface FlowCounts { inQueue: number; executing: number; seats: number; dispatched: number; queued: boolean }

export class FlowMetrics implements QueueSetObserver {
  private readonly flows = new Series<FlowCounts>(() => ({ inQueue: 0, executing: 0, seats: 0, dispatched: 0, queued: false }));
  private readonly rejectedTotal = new Series(() => 0);
  private readonly waits = new Series<Histogram>(() => ({ buckets: new Array<number>(waitBuckets.length + 1).fill(0), sum: 0, count: 0 }));
  /** The last flow looked up: consecutive requests mostly share one. */
  private last: { schema: string; level: string; counts: FlowCounts | undefined } = { schema: '', level: '', counts: undefined };

  /** The levels' nominal and current limits, read when scraped. */
  constructor(private readonly limits: () => Array<{ level: string; nominal: number; current: number }>) {}

  private countsOf(t: Ticket): FlowCounts | undefined {
    const l = this.last;
    if (l.counts && l.schema === t.flowSchema && l.level === t.priorityLevel) return l.counts;
    const counts = this.flows.at([t.flowSchema, t.priorityLevel])?.v;
    this.last = { schema: t.flowSchema, level: t.priorityLevel, counts };
    return counts;
  }

  private observeWait(t: Ticket, execute: boolean, seconds: number): void {
    const e = this.waits.at([execute ? 'true' : 'false', t.flowSchema, t.priorityLevel]);
    if (!e) return;
    let i = 0;
    while (i < waitBuckets.length && seconds > waitBuckets[i]) i++;
    e.v.buckets[i]++;
    e.v.sum += seconds;
    e.v.count++;
  }

  waiting(t: Ticket, delta: 1 | -1): void {
    const c = this.countsOf(t);
    if (!c) return;
    c.inQueue += delta;
    c.queued = true;
  }
  executing(t: Ticket, delta: 1 | -1): void {
    const c = this.countsOf(t);
    if (c) c.executing += delta;
  }
  seats(t: Ticket, delta: number): void {
    const c = this.countsOf(t);
    if (c) c.seats += delta;
  }
  dispatched(t: Ticket, waitedSeconds: number): void {
    const c = this.countsOf(t);
    if (c) c.dispatched++;
    this.observeWait(t, true, waitedSeconds);
  }
  rejected(t: Ticket, reason: RejectReason, waitedSeconds: number): void {
    const e = this.rejectedTotal.at([t.flowSchema, t.priorityLevel, reason]);
    if (e) e.v++;
    this.observeWait(t, false, waitedSeconds);
  }

  /** The metrics for RequestMetrics.add. */
  exposed(): Exposed[] {
    const flows = (pick: 'inQueue' | 'executing' | 'seats' | 'dispatched') => () => [...this.flows.map.values()]
      .filter((e) => pick !== 'inQueue' || e.v.queued).map((e) => ({ labels: flowLabels(e.labels), value: e.v[pick] }));
    const limit = (pick: 'nominal' | 'current') => () => this.limits().map((l) => ({ labels: { priority_level: l.level }, value: l[pick] }));
    return [
      exposed('apiserver_flowcontrol_dispatched_requests_total', 'counter', 'Number of requests executed by API Priority and Fairness subsystem', flows('dispatched')),
      exposed('apiserver_flowcontrol_rejected_requests_total', 'counter', 'Number of requests rejected by API Priority and Fairness subsystem',
        () => [...this.rejectedTotal.map.values()].map((e) => ({ labels: { ...flowLabels(e.labels), reason: e.labels[2] }, value: e.v }))),
      exposed('apiserver_flowcontrol_current_inqueue_requests', 'gauge', 'Number of requests currently pending in queues of the API Priority and Fairness subsystem', flows('inQueue')),
      exposed('apiserver_flowcontrol_current_executing_requests', 'gauge', 'Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem', flows('executing')),
      exposed('apiserver_flowcontrol_current_executing_seats', 'gauge', 'Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem', flows('seats')),
      exposed('apiserver_flowcontrol_request_wait_duration_seconds', 'histogram', 'Length of time a request spent waiting in its queue', () => {
        const out: MetricValue[] = [];
        const name = 'apiserver_flowcontrol_request_wait_duration_seconds';
        for (const { labels: l, v } of this.waits.map.values()) out.push(...histogramValues(name, { execute: l[0], flow_schema: l[1], priority_level: l[2] }, waitBuckets, v));
        return out;
      }),
      exposed('apiserver_flowcontrol_nominal_limit_seats', 'gauge', 'Nominal number of execution seats configured for each priority level', limit('nominal')),
      exposed('apiserver_flowcontrol_current_limit_seats', 'gauge', 'current derived number of execution seats available to each priority level', limit('current')),
    ];
  }
}
