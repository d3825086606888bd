// Records core/v1 Events through the in-process client, aggregating repeats into count and series as client-go does.
import type { Event, ObjectReference } from '../generated/k8s/core/v1.js';
import type { KObject, Referable } from '../machinery/types.js';
import { rfc3339, rfc3339Micro } from '../util/clock.js';
import type { Registry } from '../registry/registry.js';
import { Client, clientFor } from './client.js';

export interface EventSource {
  component: string;
  host?: string;
}

const aggregateWindowMs = 10 * 60 * 1000;
let nameSeq = Math.floor(Math.random() * 1_000_000);

export function objectReference(obj: Referable): ObjectReference {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion };
}

/** An Event this recorder wrote lately, with what identifies a repeat of it. */
interface Recent {
  kind?: string;
  name?: string;
  fieldPath: string;
  type: string;
  reason: string;
  message: string;
  event: string;
  namespace: string;
  at: number;
  /** The Event's write still on its way (a store that answers later, etcd): a repeat waits for it. */
  writing?: Promise<unknown>;
}

/** Remembered Events, as client-go's cache of 4,096; at most 32 for one object (older ones are forgotten first). */
const maxRecent = 4096;
const maxRecentPerObject = 32;

export class EventRecorder {
  /**
   * Recent Events by the uid of the object they are about. Within an object's few entries the fields are compared one
   * by one: no key string joining the (possibly long) message is built and hashed for every Event.
   */
  private readonly recent = new Map<string, Recent[]>();
  private recentCount = 0;
  private readonly client: Client;
  /** Records as the client's identity (a registry view is taken as the client acting for it). */
  constructor(client: Client | Registry, private readonly source: EventSource) {
    this.client = client instanceof Client ? client : clientFor(client);
  }

  private findRecent(uid: string, ref: ObjectReference, type: string, reason: string, message: string): Recent | undefined {
    const list = this.recent.get(uid);
    if (!list) return undefined;
    const fieldPath = ref.fieldPath ?? '';
    for (const r of list) {
      if (r.reason === reason && r.type === type && r.fieldPath === fieldPath && r.kind === ref.kind && r.name === ref.name && r.message === message) return r;
    }
    return undefined;
  }

  private remember(uid: string, entry: Recent): void {
    let list = this.recent.get(uid);
    if (!list) this.recent.set(uid, (list = []));
    list.push(entry);
    this.recentCount++;
    if (list.length > maxRecentPerObject) {
      list.shift();
      this.recentCount--;
    }
    while (this.recentCount > maxRecent) {
      const [oldest, entries] = this.recent.entries().next().value as [string, Recent[]];
      this.recent.delete(oldest);
      this.recentCount -= entries.length;
    }
  }

  /** Notes `write` as the entry's write on its way until it settles (refusals are dropped: Events are best effort). */
  private writing(entry: Recent, write: Promise<unknown>): void {
    const settled: Promise<unknown> = write.catch(() => undefined).then(() => {
      if (entry.writing === settled) entry.writing = undefined;
    });
    entry.writing = settled;
  }

  event(obj: Referable, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    const ref = objectReference(obj);
    if (fieldPath) ref.fieldPath = fieldPath;
    const namespace = obj.metadata.namespace || 'default';
    const now = this.client.clock.now();
    const uid = ref.uid ?? '';
    const seen = this.findRecent(uid, ref, type, reason, message);
    try {
      const recent = seen && now.getTime() - seen.at < aggregateWindowMs ? seen : undefined;
      const stored = !!recent && !!this.client.get('v1/events', recent.namespace, recent.event);
      if (recent && (stored || recent.writing)) {
        const count = () => this.client.guaranteedUpdate('v1/events', recent.namespace, recent.event, (cur) => {
          const e = cur as Event;
          const count = (e.count ?? 1) + 1;
          return { ...cur, count, lastTimestamp: rfc3339(now), series: { count, lastObservedTime: rfc3339Micro(now) } };
        }, { pure: true });
        // In the store already: counted at once; its create (or the last count) still on its way: counted after it.
        this.writing(recent, !stored && recent.writing ? recent.writing.then(count) : count());
        recent.at = now.getTime();
        return;
      }
      // Names sort in creation order (as client-go's nanosecond suffix does): a per-process sequence below the ms.
      nameSeq = (nameSeq + 1) % 1_000_000;
      const name = `${obj.metadata.name ?? 'unknown'}.${(BigInt(now.getTime()) * 1_000_000n + BigInt(nameSeq)).toString(16)}`;
      const stamp = rfc3339(now);
      const ev: Event = {
        apiVersion: 'v1', kind: 'Event', metadata: { name, namespace }, involvedObject: ref, reason, message, type,
        source: { component: this.source.component, host: this.source.host }, firstTimestamp: stamp, lastTimestamp: stamp, count: 1,
        reportingComponent: this.source.component, reportingInstance: this.source.host ?? '',
      };
      // Built here of fresh values: the write takes it over without a copy.
      const created = this.client.create('v1/events', namespace, ev as KObject, { owned: true });
      let entry: Recent;
      if (seen) {
        // A repeat after the aggregation window (or of an Event deleted meanwhile): later repeats count on the new one.
        entry = seen;
        seen.event = name;
        seen.namespace = namespace;
        seen.at = now.getTime();
      } else {
        entry = { kind: ref.kind, name: ref.name, fieldPath: ref.fieldPath ?? '', type, reason, message, event: name, namespace, at: now.getTime() };
        this.remember(uid, entry);
      }
      this.writing(entry, created);
    } catch {
      // Events are best effort (the writes' refusals too): a terminating namespace or a race never fails the caller.
    }
  }
}
