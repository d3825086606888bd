// NodePool and KWOKNodeClass status, as upstream's status controllers write it: a NodePool counts its nodes and the
// resources (capacity) of its NodeClaims, and is Ready when its spec validated and its node class is Ready; a
// KWOKNodeClass is Ready (the kwok provider has nothing to resolve).
import type { Client } from '../../client/client.js';
import { defineController } from '../../controllers/runtime/index.js';
import { amounts, type ResourceAmounts } from '../../machinery/resources.js';
import type { Clock } from '../../util/clock.js';
import type { KarpenterDeps } from './deps.js';
import { condition, setCondition } from './lifecycle.js';
import { formatAmounts } from './nodeclaims.js';
import { sum } from './scheduling/fit.js';
import { conditionTypes as ct, kwokNodeClassesRef, labels as wk, nodeClaimsRef, nodePoolsRef, type KWOKNodeClass, type NodePool } from './types.js';

const classKey = (name: string) => `class/${name}`;
const poolKey = (name: string) => `pool/${name}`;

/** NodePool and KWOKNodeClass status: keys `class/<name>` and `pool/<name>`. */
export const statusController = (deps: KarpenterDeps) => defineController({
  name: 'karpenter-status',
  watches: [
    { resource: nodePoolsRef, map: (c) => [poolKey(c.object.metadata.name ?? '')] },
    {
      resource: nodeClaimsRef,
      map: (c) => {
        const pool = c.object.metadata.labels?.[wk.nodePool];
        return pool ? [poolKey(pool)] : [];
      },
    },
    {
      resource: kwokNodeClassesRef,
      map: (c) => [classKey(c.object.metadata.name ?? ''), ...deps.nodePools.list()
        .filter((p) => p.spec?.template?.spec?.nodeClassRef?.name === c.object.metadata.name).map((p) => poolKey(p.metadata.name ?? ''))],
    },
  ],
  initialKeys: ({ client }) => [...client.list(kwokNodeClassesRef).map((c) => classKey(c.metadata.name ?? '')), ...deps.nodePools.list().map((p) => poolKey(p.metadata.name ?? ''))],
  setup: ({ client, clock }) => new StatusController(client, clock, deps),
});

class StatusController {
  constructor(private readonly client: Client, private readonly clock: Clock, private readonly deps: KarpenterDeps) {}

  async reconcile(key: string): Promise<void> {
    const name = key.slice(key.indexOf('/') + 1);
    if (key.startsWith('class/')) await this.nodeClass(name);
    else await this.nodePool(name);
  }

  private async nodeClass(name: string): Promise<void> {
    const nc = this.client.get<KWOKNodeClass>(kwokNodeClassesRef, '', name);
    if (!nc || nc.metadata.deletionTimestamp) return;
    const status = { ...(nc.status ?? {}), conditions: [...(nc.status?.conditions ?? [])] };
    setCondition(status, ct.ready, 'True', 'Ready', '', this.clock.now(), nc.metadata.generation);
    if (JSON.stringify(status) !== JSON.stringify(nc.status ?? {})) await this.client.updateStatus(kwokNodeClassesRef, '', name, { ...nc, status });
  }

  private async nodePool(name: string): Promise<void> {
    const pool = this.client.get<NodePool>(nodePoolsRef, '', name);
    if (!pool) return;
    const now = this.clock.now();
    let res: ResourceAmounts = {};
    let nodes = 0;
    for (const c of this.deps.nodeClaims.list()) {
      if (c.metadata.labels?.[wk.nodePool] !== name) continue;
      nodes++;
      res = sum(res, amounts(c.status?.capacity));
    }
    const resources = { cpu: '0', memory: '0', pods: '0', 'ephemeral-storage': '0', ...formatAmounts(res), nodes: String(nodes) };
    const status: NonNullable<NodePool['status']> = { ...(pool.status ?? {}), nodes, resources, conditions: [...(pool.status?.conditions ?? [])] };
    const ref = pool.spec?.template?.spec?.nodeClassRef;
    const nc = ref?.name ? this.client.get<KWOKNodeClass>(kwokNodeClassesRef, '', ref.name) : undefined;
    const gen = pool.metadata.generation;
    setCondition(status, ct.validationSucceeded, 'True', 'ValidationSucceeded', '', now, gen);
    if (!nc) setCondition(status, ct.nodeClassReady, 'False', 'NodeClassNotFound', 'NodeClass not found on cluster', now, gen);
    else if (condition(nc, ct.ready)?.status !== 'True') setCondition(status, ct.nodeClassReady, 'False', 'NodeClassNotReady', 'NodeClass is not ready', now, gen);
    else setCondition(status, ct.nodeClassReady, 'True', 'NodeClassReady', '', now, gen);
    const bad = [ct.validationSucceeded, ct.nodeClassReady].filter((t) => condition({ status }, t)?.status !== 'True');
    if (!bad.length) setCondition(status, ct.ready, 'True', 'Ready', '', now, gen);
    else setCondition(status, ct.ready, 'False', 'UnhealthyDependents', bad.map((t) => `${t}=False`).join(', '), now, gen);
    if (nc?.metadata.generation !== undefined) status.nodeClassObservedGeneration = nc.metadata.generation;
    if (JSON.stringify(status) !== JSON.stringify(pool.status ?? {})) await this.client.updateStatus(nodePoolsRef, '', name, { ...pool, status });
  }
}
