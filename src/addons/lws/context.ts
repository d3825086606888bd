// What the LeaderWorkerSet reconcilers share: the client, the event recorder and the informers with their indexes.
import type { Pod, Service } from '../../generated/k8s/core/v1.js';
import type { StatefulSet } from '../../generated/k8s/apps/v1.js';
import type { Client } from '../../client/client.js';
import type { EventRecorder } from '../../client/event-recorder.js';
import type { Informer } from '../../client/informer.js';
import type { KObject } from '../../machinery/types.js';
import { rfc3339 } from '../../util/clock.js';
import { labels as L, type LeaderWorkerSet } from './types.js';

export interface LwsContext {
  client: Client;
  recorder: EventRecorder;
  /** Pods with the set-name label, indexed by `set` (`ns/name`) and `group` (`ns/name/groupIndex`). */
  pods: Informer<Pod>;
  /** StatefulSets with the set-name label, indexed by `set`. */
  statefulSets: Informer<StatefulSet>;
  /**
   * The last state of LWS pods deleted since their key was last reconciled (bounded): a pod deleted at once (no
   * grace period, or a kubelet that stops it at once) is never seen terminating, and its deletion still counts.
   */
  deletedPods: Map<string, Pod>;
}

/** At most this many deleted pods are remembered between reconciles (the oldest go first). */
export const maxDeletedPods = 10_000;

export function rememberDeletedPod(ctx: LwsContext, key: string, pod: Pod): void {
  ctx.deletedPods.delete(key);
  ctx.deletedPods.set(key, pod);
  if (ctx.deletedPods.size > maxDeletedPods) ctx.deletedPods.delete(ctx.deletedPods.keys().next().value!);
}

export const stsRes = 'apps/v1/statefulsets';
export const podRes = 'v1/pods';
export const svcRes = 'v1/services';

export const nowString = (client: Client): string => rfc3339(client.clock.now());

export function setKey(o: { metadata?: { namespace?: string; labels?: Record<string, string> } }): string | undefined {
  const name = o.metadata?.labels?.[L.setName];
  return name === undefined ? undefined : `${o.metadata?.namespace ?? ''}/${name}`;
}

export function groupKey(o: { metadata?: { namespace?: string; labels?: Record<string, string> } }): string | undefined {
  const l = o.metadata?.labels;
  const name = l?.[L.setName];
  const group = l?.[L.groupIndex];
  return name === undefined || group === undefined ? undefined : `${o.metadata?.namespace ?? ''}/${name}/${group}`;
}

export const asObject = <T>(o: T): KObject => o as KObject;

/** The headless Service named `name`, created when missing (never updated, as upstream). */
export async function ensureHeadlessService(ctx: LwsContext, lws: LeaderWorkerSet, name: string, selector: Record<string, string>, owner: KObject): Promise<void> {
  const ns = lws.metadata.namespace ?? '';
  if (ctx.client.get(svcRes, ns, name)) return;
  const svc: Service = {
    apiVersion: 'v1', kind: 'Service',
    metadata: {
      name, namespace: ns, labels: { [L.setName]: lws.metadata.name ?? '' },
      ownerReferences: [{ apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    spec: { clusterIP: 'None', selector, publishNotReadyAddresses: true },
  };
  await ctx.client.create(svcRes, ns, asObject(svc));
}
