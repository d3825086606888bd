// Template revisions, as upstream LWS keeps them: a ControllerRevision per distinct (leaderWorkerTemplate,
// networkConfig), labelled with the set's name and the revision hash. Leader pods carry the hash, so a group
// recreated in the middle of a rolling update gets its workers from the template its leader was made from.
import type { ControllerRevision } from '../../generated/k8s/apps/v1.js';
import type { Client } from '../../client/client.js';
import type { KObject } from '../../machinery/types.js';
import { computeHash } from '../../controllers/workload/hash.js';
import { apiVersion, labels as L, type LeaderWorkerSet, type LeaderWorkerSetSpec } from './types.js';

const revisions = 'apps/v1/controllerrevisions';

/** What a revision records: the template and the network config (subdomain policy defaulted to Shared). */
export function templateSnapshot(lws: LeaderWorkerSet): { spec: Pick<LeaderWorkerSetSpec, 'leaderWorkerTemplate' | 'networkConfig'> } {
  return {
    spec: {
      leaderWorkerTemplate: lws.spec?.leaderWorkerTemplate ?? {},
      networkConfig: { subdomainPolicy: lws.spec?.networkConfig?.subdomainPolicy ?? 'Shared' },
    },
  };
}

export const revisionKeyOf = (lws: LeaderWorkerSet): string => computeHash(templateSnapshot(lws));

const ownedBy = (rev: KObject, lws: LeaderWorkerSet) => {
  const ref = rev.metadata.ownerReferences?.find((r) => r.controller);
  return !ref || ref.uid === lws.metadata.uid;
};

export function listRevisions(client: Client, lws: LeaderWorkerSet): ControllerRevision[] {
  const sel = `${L.setName}=${lws.metadata.name}`;
  return client.list<KObject>(revisions, lws.metadata.namespace ?? '', { labelSelector: sel }).filter((r) => ownedBy(r, lws)) as ControllerRevision[];
}

/** The revision with this hash (the highest-numbered one if several), or undefined. */
export function getRevision(client: Client, lws: LeaderWorkerSet, key: string): ControllerRevision | undefined {
  if (!key) return undefined;
  let best: ControllerRevision | undefined;
  for (const r of listRevisions(client, lws)) {
    if (r.metadata?.labels?.[L.revision] === key && (!best || r.revision >= best.revision)) best = r;
  }
  return best;
}

/** The revision of the set's current template, created when missing; returns it and whether it was created. */
export async function ensureRevision(client: Client, lws: LeaderWorkerSet): Promise<{ revision: ControllerRevision; created: boolean }> {
  const key = revisionKeyOf(lws);
  const found = getRevision(client, lws, key);
  if (found) return { revision: found, created: false };
  const highest = listRevisions(client, lws).reduce((m, r) => Math.max(m, r.revision ?? 0), 0);
  const number = highest + 1;
  const prefix = (lws.metadata.name ?? '').slice(0, 220);
  const cr: ControllerRevision = {
    apiVersion: 'apps/v1', kind: 'ControllerRevision',
    metadata: {
      name: `${prefix}-${key}-${number}`, namespace: lws.metadata.namespace,
      labels: { [L.setName]: lws.metadata.name ?? '', [L.revision]: key },
      ownerReferences: [{ apiVersion, kind: 'LeaderWorkerSet', name: lws.metadata.name ?? '', uid: lws.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    data: templateSnapshot(lws),
    revision: number,
  };
  const made = (await client.create<KObject>(revisions, lws.metadata.namespace ?? '', cr as KObject)) as ControllerRevision;
  return { revision: made, created: true };
}

/** The set with its template and network config as the revision recorded them. */
export function applyRevision(lws: LeaderWorkerSet, rev: ControllerRevision | undefined): LeaderWorkerSet {
  const data = (rev?.data ?? {}) as { spec?: LeaderWorkerSetSpec };
  if (!data.spec || typeof data.spec !== 'object') return lws;
  return { ...lws, spec: { ...(lws.spec ?? {}), leaderWorkerTemplate: data.spec.leaderWorkerTemplate, networkConfig: data.spec.networkConfig } };
}

/** Deletes the revisions other than `keep` (once a rollout is done). */
export async function truncateRevisions(client: Client, lws: LeaderWorkerSet, keep: string): Promise<void> {
  for (const r of listRevisions(client, lws)) {
    if (r.metadata?.labels?.[L.revision] !== keep) {
      try {
        await client.delete(revisions, lws.metadata.namespace ?? '', r.metadata?.name ?? '');
      } catch {
        // Gone already: nothing to truncate.
      }
    }
  }
}
