// ControllerRevisions, the history StatefulSets and DaemonSets keep of their pod templates (upstream
// controller/history): one revision per distinct template, numbered, named `<owner>-<hash>`, owned by the set,
// and read by `kubectl rollout history|undo`.
import type { ControllerRevision } from '../../generated/k8s/apps/v1.js';
import type { LabelSelector } from '../../generated/k8s/meta/v1.js';
import { labelSelectorMatches } from '../../machinery/labels.js';
import type { KObject } from '../../machinery/types.js';
import type { Client } from '../../client/client.js';
import type { ResourceDef } from '../../client/types.js';
import { canonicalJson, computeHash } from './hash.js';
import { claim } from './claim.js';
import type { Steps } from '../../util/steps.js';

/** The label on ControllerRevisions (and on StatefulSet/DaemonSet pods) carrying the revision's hash. */
export const revisionHashLabel = 'controller-revision-hash';

export class History {
  readonly def: ResourceDef;
  constructor(private readonly client: Client) {
    this.def = client.resource('apps/v1/controllerrevisions')!;
  }

  /** Revisions the owner controls (adopting matching orphans), oldest revision first. */
  *list(owner: KObject, selector: LabelSelector | undefined): Steps<ControllerRevision[]> {
    const all = this.client.list('apps/v1/controllerrevisions', owner.metadata.namespace ?? '')
      .filter((r) => labelSelectorMatches(selector, r.metadata.labels ?? {}) || r.metadata.ownerReferences?.some((o) => o.uid === owner.metadata.uid));
    const mine = (yield* claim(this.client, this.def, owner, selector, all)) as ControllerRevision[];
    return mine.sort((a, b) => (a.revision ?? 0) - (b.revision ?? 0) || (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
  }

  /**
   * Returns the revision holding `data` (a patch that restores the template), creating it with number `revision`
   * or renumbering an equal older one. Hash collisions with different data bump `collisionCount` via `onCollision`.
   * `annotations` (optional) are copied onto a new revision (StatefulSets copy theirs, e.g. kubernetes.io/change-cause).
   */
  *ensure(owner: KObject, revisions: ControllerRevision[], data: unknown, revision: number, labels: Record<string, string>, collisionCount: number, onCollision: (n: number) => unknown, annotations?: Record<string, string>): Steps<ControllerRevision> {
    const dataText = canonicalJson(data);
    const equal = revisions.filter((r) => canonicalJson(r.data) === dataText);
    const ns = owner.metadata.namespace ?? '';
    if (equal.length) {
      const latest = equal[equal.length - 1];
      if ((latest.revision ?? 0) === revision) return latest;
      return (yield this.client.guaranteedUpdate(this.def, ns, latest.metadata?.name ?? '', (cur) => ({ ...cur, revision }))) as ControllerRevision;
    }
    let count = collisionCount;
    for (;;) {
      const hash = computeHash(data, count);
      const name = `${owner.metadata.name}-${hash}`;
      const existing = this.client.get('apps/v1/controllerrevisions', ns, name) as ControllerRevision | undefined;
      if (existing) {
        if (canonicalJson(existing.data) === dataText && existing.metadata?.ownerReferences?.some((o) => o.uid === owner.metadata.uid)) return existing;
        count++;
        // The owner's status keeps the count: a write there waits like the others.
        const wrote = onCollision(count);
        if (wrote instanceof Promise) yield wrote;
        continue;
      }
      const cr = {
        apiVersion: 'apps/v1', kind: 'ControllerRevision',
        metadata: {
          name, namespace: ns, labels: { ...labels, [revisionHashLabel]: hash }, ...(annotations && Object.keys(annotations).length ? { annotations } : {}),
          ownerReferences: [{ apiVersion: owner.apiVersion ?? '', kind: owner.kind ?? '', name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
        },
        data, revision,
      };
      return (yield this.client.create(this.def, ns, cr as KObject)) as ControllerRevision;
    }
  }

  /** Deletes the oldest revisions not in `keep` beyond `limit` (revisionHistoryLimit). */
  *truncate(revisions: ControllerRevision[], keep: Set<string>, limit: number): Steps<void> {
    const old = revisions.filter((r) => !keep.has(r.metadata?.name ?? ''));
    for (const r of old.slice(0, Math.max(0, old.length - limit))) {
      try {
        yield this.client.delete(this.def, r.metadata?.namespace ?? '', r.metadata?.name ?? '');
      } catch { /* already gone */ }
    }
  }

  /** The next revision number: one past the highest. */
  static nextRevision(revisions: ControllerRevision[]): number {
    return revisions.reduce((m, r) => Math.max(m, r.revision ?? 0), 0) + 1;
  }
}
