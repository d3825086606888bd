// A server's open watches (so that its shutdown ends them) and its count of watchers cut off for not keeping up.
import type { Registry } from '../registry/registry.js';

const openByServer = new WeakMap<Registry, Set<() => void>>();
/** A server's open watches and log follows (by its root Registry), so that its shutdown ends them and no other's. */
export function openWatchesOf(reg: Registry): Set<() => void> {
  const server = reg.root();
  let s = openByServer.get(server);
  if (!s) openByServer.set(server, (s = new Set()));
  return s;
}

const terminatedByServer = new WeakMap<Registry, Map<string, number>>();
/** A server's watchers cut off for not keeping up, by "resource.group" (upstream's apiserver_terminated_watchers_total). */
export function terminatedWatchersOf(reg: Registry): Map<string, number> {
  const server = reg.root();
  let m = terminatedByServer.get(server);
  if (!m) terminatedByServer.set(server, (m = new Map()));
  return m;
}
