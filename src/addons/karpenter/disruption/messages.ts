// The story event of a consolidation (issue 12 item 5): which node goes, why, and what it saves per hour.
import type { Candidate } from './candidates.js';
import { decisionOf, type Command } from './methods.js';

const dollars = (n: number): string => `$${Math.max(0, n).toFixed(2)}/h`;

export function consolidationMessage(cmd: Command, c: Candidate): string {
  const node = c.node.metadata?.name ?? c.claim.metadata.name ?? '';
  const many = cmd.candidates.length > 1 ? ` (part of a ${cmd.candidates.length}-node consolidation saving ${dollars(cmd.savings)})` : '';
  if (cmd.reason === 'Empty') return `Consolidation of node ${node} because it is empty and it saves ${dollars(c.price)}${many}`;
  if (decisionOf(cmd) === 'Delete') return `Consolidation of node ${node} because its pods fit elsewhere and it saves ${dollars(c.price)}${many}`;
  const r = cmd.replacements[0];
  const type = r?.instanceTypes[0]?.name ?? 'a cheaper type';
  const saves = cmd.candidates.length > 1 ? cmd.savings : c.price - (r?.price ?? 0);
  return `Consolidation of node ${node} because its pods fit elsewhere with a cheaper replacement (${type}) and it saves ${dollars(saves)}${cmd.candidates.length > 1 ? ` (part of a ${cmd.candidates.length}-node consolidation)` : ''}`;
}
