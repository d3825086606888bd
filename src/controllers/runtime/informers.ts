// The informers a manager's controllers share: one per resource (one change-feed subscription, one set of indexes),
// each controller adding the named indexes it reads. Common index functions are below.
import type { Client } from '../../client/client.js';
import type { IndexFn, Informer } from '../../client/informer.js';
import type { ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/types.js';

/** Index names every controller may ask for with the functions below. */
export const indexNames = { namespace: 'namespace', byOwner: 'byOwner', byNode: 'byNode' } as const;

/** The fields the common indexes read (any kind's type has them: KObject, Pod, ReplicaSet...). */
interface Indexable {
  metadata?: { namespace?: string; ownerReferences?: ReadonlyArray<{ controller?: boolean; uid: string }> };
  spec?: unknown;
}

/**
 * Common index functions (share these very functions: an informer holds one function per index name): by namespace,
 * by controller uid (`orphan/<namespace>` when none, as controllers adopt orphans), by the node a pod is bound to.
 */
export const indexes = {
  namespace: (o: Indexable): string => o.metadata?.namespace ?? '',
  byOwner: (o: Indexable): string => o.metadata?.ownerReferences?.find((r) => r.controller === true)?.uid ?? `orphan/${o.metadata?.namespace ?? ''}`,
  byNode: (o: Indexable): string | undefined => (o.spec as { nodeName?: string } | undefined)?.nodeName,
} satisfies Record<keyof typeof indexNames, IndexFn<Indexable>>;

export class SharedInformers {
  private readonly byResource = new Map<string, Informer>();

  constructor(private readonly client: Client) {}

  /** The shared informer of `res` (made on first use), with the named indexes added to it. */
  informer<T = KObject>(res: ResourceRef, withIndexes: Record<string, IndexFn<NoInfer<T>>> = {}): Informer<T> {
    const id = this.idOf(res);
    let informer = this.byResource.get(id);
    if (!informer) this.byResource.set(id, (informer = this.client.informer(res)));
    const typed = informer as unknown as Informer<T>;
    for (const [name, fn] of Object.entries(withIndexes)) typed.addIndex(name, fn);
    return typed;
  }

  /** Whether the server serves `res` (an informer of it can be had). */
  serves(res: ResourceRef): boolean {
    return typeof res !== 'string' || this.client.resource(res) !== undefined;
  }

  /** The resources an informer is running for (`group/version/plural`). */
  resources(): string[] {
    return [...this.byResource.keys()];
  }

  stop(): void {
    for (const i of this.byResource.values()) i.stop();
    this.byResource.clear();
  }

  private idOf(res: ResourceRef): string {
    const def = typeof res === 'string' ? this.client.resource(res) : res;
    if (!def) throw new Error(`no resource ${String(res)}`);
    return `${def.group}/${def.version}/${def.plural}`;
  }
}
