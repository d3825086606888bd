// Records core/v1 Events through the in-process client, aggregating repeats into count and series as client-go does.
import type { Event, ObjectReference } from 'kubernetes-types/core/v1.js';
import type { KObject } from '../machinery/types.js';
import { rfc3339, rfc3339Micro } from '../util/clock.js';
import type { Registry } from '../registry/registry.js';
import { Client, clientFor } from './client.js';

export interface EventSource {
  component: string;
  host?: string;
}

const aggregateWindowMs = 10 * 60 * 1000;
let nameSeq = Math.floor(Math.random() * 1_000_000);

export function objectReference(obj: KObject): ObjectReference {
  return { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.metadata.name, namespace: obj.metadata.namespace, uid: obj.metadata.uid, resourceVersion: obj.metadata.resourceVersion };
}

export class EventRecorder {
  private readonly recent = new Map<string, { name: string; namespace: string; at: number }>();
  private readonly client: Client;
  /** Records as the client's identity (a registry view is taken as the client acting for it). */
  constructor(client: Client | Registry, private readonly source: EventSource) {
    this.client = client instanceof Client ? client : clientFor(client);
  }

  event(obj: KObject, type: 'Normal' | 'Warning', reason: string, message: string, fieldPath?: string): void {
    const ref = objectReference(obj);
    if (fieldPath) ref.fieldPath = fieldPath;
    const namespace = obj.metadata.namespace || 'default';
    const now = this.client.clock.now();
    const key = [ref.uid, ref.kind, ref.name, ref.fieldPath ?? '', type, reason, message, this.source.component].join('\u0000');
    const seen = this.recent.get(key);
    try {
      if (seen && now.getTime() - seen.at < aggregateWindowMs && this.client.get('v1/events', seen.namespace, seen.name)) {
        this.client.guaranteedUpdate('v1/events', seen.namespace, seen.name, (cur) => {
          const e = cur as unknown as Event;
          const count = (e.count ?? 1) + 1;
          return { ...cur, count, lastTimestamp: rfc3339(now), series: { count, lastObservedTime: rfc3339Micro(now) } };
        }, { pure: true });
        seen.at = now.getTime();
        return;
      }
      // Names sort in creation order (as client-go's nanosecond suffix does): a per-process sequence below the ms.
      nameSeq = (nameSeq + 1) % 1_000_000;
      const name = `${obj.metadata.name ?? 'unknown'}.${(BigInt(now.getTime()) * 1_000_000n + BigInt(nameSeq)).toString(16)}`;
      const ev: Event = {
        apiVersion: 'v1', kind: 'Event', metadata: { name, namespace }, involvedObject: ref, reason, message, type,
        source: { component: this.source.component, host: this.source.host }, firstTimestamp: rfc3339(now), lastTimestamp: rfc3339(now), count: 1,
        reportingComponent: this.source.component, reportingInstance: this.source.host ?? '',
      };
      // Built here of fresh values: the write takes it over without a copy.
      this.client.create('v1/events', namespace, ev as unknown as KObject, { owned: true });
      this.recent.set(key, { name, namespace, at: now.getTime() });
      if (this.recent.size > 4096) this.recent.delete(this.recent.keys().next().value as string);
    } catch {
      // Events are best effort: a terminating namespace or a race never fails the caller.
    }
  }
}
