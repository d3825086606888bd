// API Priority and Fairness, the dispatching half: the live configuration (rebuilt when a FlowSchema or
// PriorityLevelConfiguration changes), one queue set per priority level, classification and admission of requests.
// A level whose configuration is gone keeps serving what it holds (quiescing) and is dropped once idle.
import type { RequestAttributes } from '../../auth/types.js';
import type { Registry } from '../../registry/registry.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../types.js';
import { classify, distinguisherOf } from './classify.js';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../bootstrap.js';
import { digestConfig } from './config.js';
import { FlowMetrics } from './flow-metrics.js';
import { QueueSet, type RejectReason, type Ticket } from './queue-set.js';
import { DroppedRequests } from './retry-after.js';
import { OutboundBound } from './outbound.js';

const builtInSchemaNames = new Set([...mandatoryFlowSchemas, ...suggestedFlowSchemas].map((o) => o.metadata.name));
const builtInLevelNames = new Set([...mandatoryPriorityLevels, ...suggestedPriorityLevels].map((o) => o.metadata.name));
const complete = (objs: readonly { metadata: { name?: string } }[], names: ReadonlySet<string>) => names.size <= objs.filter((o) => names.has(o.metadata.name ?? '')).length;
const hasOwn = (objs: readonly { metadata: { name?: string } }[], names: ReadonlySet<string>) => objs.some((o) => !names.has(o.metadata.name ?? ''));

export const flowSchemasKey = 'flowcontrol.apiserver.k8s.io/flowschemas';
export const priorityLevelsKey = 'flowcontrol.apiserver.k8s.io/prioritylevelconfigurations';

export interface LevelState {
  name: string;
  pl: PriorityLevelConfiguration;
  queues: QueueSet;
  nominalLimit: number;
  quiescing: boolean;
}

/** What a request was classified as (for the response headers and the decision). */
export interface Admission {
  flowSchema: FlowSchema;
  level: LevelState;
  ticket: Ticket;
}

export class FlowControl {
  readonly metrics: FlowMetrics;
  readonly drops = new DroppedRequests();
  /** Outbound calls made with the seat given back (see outbound.ts), at most as many as the server's seats. */
  readonly outbound: OutboundBound;
  readonly levels = new Map<string, LevelState>();
  private schemas: FlowSchema[] = [];
  private dirty = true;
  /** Whether the stored objects are taken as the configuration (see refresh). */
  private bootstrapped = false;
  private readonly unsubscribe: Array<() => void>;

  /** `serverLimit`: the seats all levels share (--max-requests-inflight + --max-mutating-requests-inflight). */
  constructor(private readonly reg: Registry, readonly serverLimit: number) {
    this.outbound = new OutboundBound(serverLimit);
    this.metrics = new FlowMetrics(() => [...this.levels.values()].map((l) => ({ level: l.name, nominal: l.nominalLimit, current: l.queues.config.limit })));
    const changed = () => {
      this.dirty = true;
    };
    this.unsubscribe = [reg.onChange(flowSchemasKey, changed), reg.onChange(priorityLevelsKey, changed)];
  }

  stop(): void {
    for (const u of this.unsubscribe) u();
  }

  /**
   * Re-reads the configuration when an object changed since the last request. Until the built-in objects are all
   * stored (the configuration producer writes them one by one after the server listens: on etcd that takes a while)
   * or someone stored one of their own, the built-in configuration is used as a whole: a part of it would send
   * requests whose FlowSchema is not written yet to the catch-all level's few seats, and refuse them. kube-apiserver
   * hides that window behind its readiness check; this one serves from the start.
   */
  private refresh(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const stored = (key: string) => this.reg.listStored(key) as unknown[];
    const schemas = stored(flowSchemasKey) as FlowSchema[];
    const levels = stored(priorityLevelsKey) as PriorityLevelConfiguration[];
    this.bootstrapped ||= complete(schemas, builtInSchemaNames) && complete(levels, builtInLevelNames) || hasOwn(schemas, builtInSchemaNames) || hasOwn(levels, builtInLevelNames);
    const digest = this.bootstrapped ? digestConfig(schemas, levels, this.serverLimit) : digestConfig([], [], this.serverLimit);
    this.schemas = digest.flowSchemas;
    for (const [name, d] of digest.levels) {
      const known = this.levels.get(name);
      if (known) {
        known.pl = d.pl;
        known.nominalLimit = d.nominalLimit;
        known.quiescing = false;
        known.queues.configure(d.config);
      } else {
        this.levels.set(name, { name, pl: d.pl, nominalLimit: d.nominalLimit, quiescing: false, queues: new QueueSet(d.config, this.metrics) });
      }
    }
    for (const [name, l] of this.levels) {
      if (digest.levels.has(name)) continue;
      l.quiescing = true;
      if (l.queues.idle()) this.levels.delete(name);
    }
  }

  /** The FlowSchema and level a request falls in (the mandatory catch-all when nothing else matches). */
  classify(attrs: RequestAttributes): { flowSchema: FlowSchema; level: LevelState } | undefined {
    this.refresh();
    const fs = classify(this.schemas, attrs);
    const level = fs && this.levels.get(fs.spec.priorityLevelConfiguration.name);
    return fs && level ? { flowSchema: fs, level } : undefined;
  }

  /** Admits a classified request: `decide` is called once, at once or after it waited in a queue. */
  admit(c: { flowSchema: FlowSchema; level: LevelState }, attrs: RequestAttributes, waitLimitMs: number, decide: (ok: boolean, reason?: RejectReason) => void): Admission {
    const { flowSchema, level } = c;
    const ticket: Ticket = {
      flowSchema: flowSchema.metadata.name, priorityLevel: level.name, distinguisher: distinguisherOf(flowSchema, attrs), seats: 1, attrs,
      arrivedAt: Date.now(), arrivedMono: performance.now(), state: 'new',
      decide: (ok: boolean, reason?: RejectReason) => {
        if (!ok) this.drops.record(level.name);
        decide(ok, reason);
      },
    };
    level.queues.arrive(ticket, waitLimitMs);
    return { flowSchema, level, ticket };
  }

  /** The request ended (answered or abandoned): its seats go to the next in line. */
  finish(a: Admission): void {
    a.level.queues.finish(a.ticket);
    if (a.level.quiescing && a.level.queues.idle() && this.levels.get(a.level.name) === a.level) this.levels.delete(a.level.name);
  }
}
