// The dispatcher's configuration from the FlowSchema and PriorityLevelConfiguration objects, as upstream's APF
// controller digests them: the mandatory objects stand in for any missing (and all of upstream's objects before
// the store holds any), schemas naming an unknown level are skipped, and each level's nominal concurrency limit
// is its share of the server's limit: ceil(serverLimit × nominalConcurrencyShares / sum of all levels' shares).
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../bootstrap.js';
import type { FlowSchema, PriorityLevelConfiguration } from '../types.js';
import { sortFlowSchemas } from './classify.js';
import type { QueueSetConfig } from './queue-set.js';

export interface Digest {
  /** Schemas in matching order, each naming a known level. */
  flowSchemas: FlowSchema[];
  levels: Map<string, { pl: PriorityLevelConfiguration; config: QueueSetConfig; nominalLimit: number }>;
}

function sharesOf(pl: PriorityLevelConfiguration): number {
  const s = pl.spec.type === 'Exempt' ? pl.spec.exempt?.nominalConcurrencyShares : pl.spec.limited?.nominalConcurrencyShares;
  return typeof s === 'number' && Number.isFinite(s) && s > 0 ? s : 0;
}

/** Upstream's bounds on a queuing configuration (validation enforces them; these keep odd stored data harmless). */
const clamp = (v: unknown, lo: number, hi: number, dflt: number) => (typeof v === 'number' && Number.isInteger(v) ? Math.min(hi, Math.max(lo, v)) : dflt);

function queueSetConfig(pl: PriorityLevelConfiguration, nominalLimit: number): QueueSetConfig {
  if (pl.spec.type === 'Exempt') return { exempt: true, limit: nominalLimit, queues: 0, handSize: 0, queueLengthLimit: 0 };
  const lr = pl.spec.limited?.limitResponse;
  const q = lr?.type === 'Queue' ? lr.queuing : undefined;
  if (!q) return { exempt: false, limit: nominalLimit, queues: 0, handSize: 0, queueLengthLimit: 0 };
  const queues = clamp(q.queues, 1, 512, 64);
  return { exempt: false, limit: nominalLimit, queues, handSize: clamp(q.handSize, 1, queues, Math.min(8, queues)), queueLengthLimit: clamp(q.queueLengthLimit, 1, 10_000, 50) };
}

/** The configuration from the stored objects (either list may be empty) and the server's concurrency limit. */
export function digestConfig(anySchemas: readonly FlowSchema[], anyLevels: readonly PriorityLevelConfiguration[], serverLimit: number): Digest {
  const storedSchemas = anySchemas.filter((fs) => typeof fs.spec?.priorityLevelConfiguration?.name === 'string' && typeof fs.spec.matchingPrecedence === 'number');
  const storedLevels = anyLevels.filter((pl) => pl.spec?.type === 'Exempt' || pl.spec?.type === 'Limited');
  const none = storedSchemas.length === 0 && storedLevels.length === 0;
  const levels = new Map<string, PriorityLevelConfiguration>();
  for (const pl of none ? [...mandatoryPriorityLevels, ...suggestedPriorityLevels] : storedLevels) levels.set(pl.metadata.name, pl);
  for (const pl of mandatoryPriorityLevels) if (!levels.has(pl.metadata.name)) levels.set(pl.metadata.name, pl);
  const schemas = new Map<string, FlowSchema>();
  for (const fs of none ? [...mandatoryFlowSchemas, ...suggestedFlowSchemas] : storedSchemas) schemas.set(fs.metadata.name, fs);
  for (const fs of mandatoryFlowSchemas) if (!schemas.has(fs.metadata.name)) schemas.set(fs.metadata.name, fs);

  let shareSum = 0;
  for (const pl of levels.values()) shareSum += sharesOf(pl);
  const out: Digest['levels'] = new Map();
  for (const [name, pl] of levels) {
    const nominalLimit = shareSum > 0 ? Math.ceil((serverLimit * sharesOf(pl)) / shareSum) : 0;
    out.set(name, { pl, nominalLimit, config: queueSetConfig(pl, nominalLimit) });
  }
  const flowSchemas = sortFlowSchemas([...schemas.values()].filter((fs) => levels.has(fs.spec.priorityLevelConfiguration.name)));
  return { flowSchemas, levels: out };
}
