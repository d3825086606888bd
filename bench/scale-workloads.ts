// STUB (bench branch): the `quad` engineer owns this file and its real figures (1,000 Deployments x 10 replicas
// available and rolled, scheduler_perf-style throughput at 5,000 nodes). Their version replaces this one at merge.
import type { Row } from './table.js';

export async function scaleWorkloadRows(opts: { quick: boolean; log?: (msg: string) => void }): Promise<Row[]> {
  void opts;
  return [];
}
