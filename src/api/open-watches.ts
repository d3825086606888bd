// A server's open watches (so that its shutdown ends them) and its count of watchers cut off for not keeping up.
import type { Registry } from '../registry/registry.js';
import { ServerSlot } from '../util/server-slot.js';

const openWatches = new ServerSlot('open watches', () => new Set<() => void>());
/** A server's open watches and log follows, so that its shutdown ends them and no other's. */
export function openWatchesOf(reg: Registry): Set<() => void> {
  return reg.state(openWatches);
}

const terminatedWatchers = new ServerSlot('terminated watchers', () => new Map<string, number>());
/** A server's watchers cut off for not keeping up, by "resource.group" (upstream's apiserver_terminated_watchers_total). */
export function terminatedWatchersOf(reg: Registry): Map<string, number> {
  return reg.state(terminatedWatchers);
}
