// The FailedScheduling message, worded and ordered as upstream's FitError.
import type { Failure } from './framework.js';

export const noNodesAvailable = 'no nodes available to schedule pods';

/**
 * `0/N nodes are available: <count reason, ...sorted>. <post-filter message>.`; a PreFilter rejection replaces the
 * per-node counts with its own message.
 */
export function fitErrorMessage(numAllNodes: number, failures: Iterable<Failure>, postFilterMsg = '', preFilterMsg = ''): string {
  let msg = `0/${numAllNodes} nodes are available:`;
  if (preFilterMsg) msg += ` ${preFilterMsg}.`;
  else {
    const histogram = new Map<string, number>();
    for (const f of failures) for (const r of f.reasons) histogram.set(r, (histogram.get(r) ?? 0) + 1);
    const parts = [...histogram].map(([reason, n]) => `${n} ${reason}`).sort();
    if (parts.length) msg += ` ${parts.join(', ')}.`;
  }
  if (postFilterMsg) msg += ` ${postFilterMsg}.`;
  return msg;
}
