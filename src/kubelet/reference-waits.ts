// The pods a kubelet holds back for a Secret or ConfigMap (a volume it cannot set up, a container whose environment
// it cannot build), and the watches that wake them: any Secret or ConfigMap written in a pod's namespace has the
// pod checked again at once, rather than at its next retry (upstream's kubelet waits for its retry; the watch only
// shortens the wait, the retries stay the level-triggered fallback).
import type { Client } from '../client/client.js';
import type { KObject } from '../machinery/types.js';
import type { PodRun } from './pod-runtime.js';
import { allRuns } from './pod-runtime.js';
import type { RefKind, RefLookup } from './pod-references.js';

const none: ReadonlySet<string> = new Set();

const keysOf = (v: unknown): ReadonlySet<string> => (v && typeof v === 'object' ? new Set(Object.keys(v)) : none);

/** The Secrets and ConfigMaps of one namespace as the kubelet sees them now. */
export function referenceLookup(client: Client, namespace: string): RefLookup {
  return (kind: RefKind, name: string) => {
    const o = client.get<KObject>(kind === 'secret' ? 'v1/secrets' : 'v1/configmaps', namespace, name);
    if (!o) return undefined;
    return { data: keysOf(o.data), binary: kind === 'configmap' ? keysOf(o.binaryData) : none };
  };
}

/** Whether the pod waits for volumes or for a container's configuration. */
export function waitsOnReferences(run: PodRun): boolean {
  return run.mountWait !== undefined || allRuns(run).some((c) => c.configError !== undefined);
}

/** Has the pod's references checked at its next advance instead of at the next retry. */
export function recheckReferences(run: PodRun, now: number): void {
  if (run.mountWait) run.mountWait.recheck = true;
  for (const c of allRuns(run)) {
    if (c.configRetry && c.dueMs !== undefined && c.dueMs > now) c.dueMs = now;
  }
}

export class ReferenceWaits {
  /** Pod keys waiting, by namespace. */
  private readonly waiting = new Map<string, Set<string>>();
  private readonly stops: Array<() => void> = [];

  constructor(client: Client, wake: (podKey: string) => void) {
    const changed = (o: KObject) => {
      const keys = this.waiting.get(o.metadata.namespace ?? '');
      if (keys) for (const key of [...keys]) wake(key);
    };
    this.stops.push(client.watch('v1/secrets', (c) => c.type !== 'DELETED' && changed(c.object)));
    this.stops.push(client.watch('v1/configmaps', (c) => c.type !== 'DELETED' && changed(c.object)));
  }

  /** Records whether the pod `key` (namespace/name) waits. */
  track(key: string, waits: boolean): void {
    const ns = key.slice(0, key.indexOf('/'));
    let keys = this.waiting.get(ns);
    if (!waits) {
      if (keys?.delete(key) && keys.size === 0) this.waiting.delete(ns);
      return;
    }
    if (!keys) this.waiting.set(ns, (keys = new Set()));
    keys.add(key);
  }

  stop(): void {
    this.stops.forEach((s) => s());
    this.waiting.clear();
  }
}
