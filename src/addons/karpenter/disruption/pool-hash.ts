// Upstream's nodepool hash controller: stamps each NodePool with karpenter.sh/nodepool-hash (the hash of its
// template, as new NodeClaims carry it) and karpenter.sh/nodepool-hash-version, so static drift is a comparison of
// the two annotations. A NodeClaim whose hash version is older is re-stamped rather than treated as drifted.
import type { Client } from '../../../client/client.js';
import type { KObject } from '../../../machinery/types.js';
import type { Logger } from '../../../util/logger.js';
import type { KarpenterDeps } from '../deps.js';
import { nodePoolHash } from '../nodeclaims.js';
import { annotations as ann, labels as wk, nodeClaimsRef, nodePoolHashVersion, nodePoolsRef, type NodePool } from '../types.js';

async function stamp(client: Client, ref: string, name: string, hash: string, log: Logger): Promise<void> {
  try {
    await client.guaranteedUpdate(ref, '', name, (cur) => ({
      ...cur, metadata: { ...cur.metadata, annotations: { ...(cur.metadata.annotations ?? {}), [ann.nodePoolHash]: hash, [ann.nodePoolHashVersion]: nodePoolHashVersion } },
    }) as KObject);
  } catch (err) {
    log.debug({ err, ref, name }, 'stamping the nodepool hash failed');
  }
}

/** Brings the NodePool's hash annotations up to date (and its NodeClaims' when the hash version changed). */
export async function syncPoolHash(client: Client, deps: KarpenterDeps, pool: NodePool, log: Logger): Promise<void> {
  if (pool.metadata.deletionTimestamp) return;
  const name = pool.metadata.name ?? '';
  const hash = nodePoolHash(pool);
  const a = pool.metadata.annotations ?? {};
  const versionChanged = a[ann.nodePoolHashVersion] !== nodePoolHashVersion;
  if (a[ann.nodePoolHash] !== hash || versionChanged) await stamp(client, nodePoolsRef, name, hash, log);
  if (!versionChanged) return;
  for (const nc of deps.nodeClaims.list()) {
    if (nc.metadata.labels?.[wk.nodePool] !== name || nc.metadata.annotations?.[ann.nodePoolHashVersion] === nodePoolHashVersion) continue;
    await stamp(client, nodeClaimsRef, nc.metadata.name ?? '', hash, log);
  }
}
