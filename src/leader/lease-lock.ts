// The Lease a leader election is held in (coordination.k8s.io/v1, as client-go's LeaseLock): reading its record
// and writing it back with optimistic concurrency (the resourceVersion read), through the in-process client.
import type { Lease } from '../generated/k8s/coordination/v1.js';
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import { rfc3339Micro } from '../util/clock.js';

export const leaseResource = 'coordination.k8s.io/v1/leases';

/** What an election reads from and writes to the Lease's spec. */
export interface LeaderRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions: number;
}

/** The record a Lease holds (another client may have written anything its schema allows: read defensively). */
export function recordOf(lease: KObject): LeaderRecord {
  const spec = ((lease).spec ?? {}) as Lease['spec'] & object;
  const duration = spec.leaseDurationSeconds;
  const transitions = spec.leaseTransitions;
  return {
    holderIdentity: typeof spec.holderIdentity === 'string' ? spec.holderIdentity : '',
    leaseDurationSeconds: typeof duration === 'number' && Number.isFinite(duration) && duration > 0 ? duration : 0,
    acquireTime: typeof spec.acquireTime === 'string' ? spec.acquireTime : undefined,
    renewTime: typeof spec.renewTime === 'string' ? spec.renewTime : undefined,
    leaseTransitions: typeof transitions === 'number' && Number.isInteger(transitions) && transitions >= 0 ? transitions : 0,
  };
}

/** A record's identity for "has it changed since I last looked" (client-go compares the serialized record). */
export function recordKey(r: LeaderRecord): string {
  return [r.holderIdentity, r.leaseDurationSeconds, r.acquireTime ?? '', r.renewTime ?? '', r.leaseTransitions].join('\u0000');
}

export const microTime = (ms: number) => rfc3339Micro(new Date(ms));

export class LeaseLock {
  constructor(private readonly client: Client, readonly namespace: string, readonly name: string) {}

  /** The Lease, or undefined when there is none. */
  get(): KObject | undefined {
    return this.client.get(leaseResource, this.namespace, this.name);
  }

  create(record: LeaderRecord): Promise<KObject> {
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1', kind: 'Lease',
      metadata: { name: this.name, namespace: this.namespace },
      spec: specOf(record),
    };
    return this.client.create(leaseResource, this.namespace, lease);
  }

  /** Writes `record` over `current` (a 409 Conflict when the Lease changed since it was read). */
  update(current: KObject, record: LeaderRecord): KObject | Promise<KObject> {
    const next = { ...current, metadata: { ...current.metadata }, spec: { ...(current.spec as object), ...specOf(record) } } as KObject;
    // At once unless an admission webhook is called: a renewal must not wait a turn for nothing.
    return this.client.updateNowOrWait(leaseResource, this.namespace, this.name, () => next);
  }

  /** Calls `fn` on every change of this Lease; returns the unsubscribe function. */
  watch(fn: (lease: KObject, deleted: boolean) => void): () => void {
    return this.client.watch(leaseResource, (c) => {
      if (c.object.metadata.namespace === this.namespace && c.object.metadata.name === this.name) fn(c.object, c.type === 'DELETED');
    });
  }
}

function specOf(r: LeaderRecord): NonNullable<Lease['spec']> {
  // A released Lease says holderIdentity "" (client-go writes the empty string, not nothing).
  const spec: NonNullable<Lease['spec']> = { holderIdentity: r.holderIdentity, leaseDurationSeconds: r.leaseDurationSeconds, leaseTransitions: r.leaseTransitions };
  if (r.acquireTime) spec.acquireTime = r.acquireTime;
  if (r.renewTime) spec.renewTime = r.renewTime;
  return spec;
}
