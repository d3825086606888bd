// The informers a manager's controllers share: one per resource (one change-feed subscription, one set of indexes),
// each controller adding the named indexes it reads. Common index functions are below.
import type { Client } from '../../client/client.js';
import type { IndexFn, Informer } from '../../client/informer.js';
import type { ResourceRef } from '../../client/types.js';
import type { KObject } from '../../machinery/types.js';
import { controllerIndex } from '../workload/owner.js';

/** Index names every controller may ask for with the functions below. */
export const indexNames = { namespace: 'namespace', byOwner: 'byOwner', byNode: 'byNode' } as const;

/** Common index functions: by namespace, by controller uid (`orphan/<namespace>` when none), by pod node. */
export const indexes = {
  namespace: (o: KObject): string => o.metadata.namespace ?? '',
  byOwner: controllerIndex,
  byNode: (o: KObject): string | undefined => (o.spec as { nodeName?: string } | undefined)?.nodeName,
} satisfies Record<keyof typeof indexNames, IndexFn<KObject>>;

export class SharedInformers {
  private readonly byResource = new Map<string, Informer>();

  constructor(private readonly client: Client) {}

  /** The shared informer of `res` (made on first use), with the named indexes added to it. */
  informer<T = KObject>(res: ResourceRef, withIndexes: Record<string, IndexFn<T>> = {}): Informer<T> {
    const id = this.idOf(res);
    let informer = this.byResource.get(id);
    if (!informer) this.byResource.set(id, (informer = this.client.informer(res)));
    const typed = informer as unknown as Informer<T>;
    for (const [name, fn] of Object.entries(withIndexes)) typed.addIndex(name, fn);
    return typed;
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
