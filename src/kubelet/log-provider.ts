// Where pods/log reads container output: the kubelet simulation installs a provider, the API's log handler asks it.
import type { KObject } from '../machinery/types.js';
import type { LogStore } from './log-store.js';
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';

export interface PodLogLine {
  /** Clock time the line was printed, in ms. */
  atMs: number;
  text: string;
}

export interface LogProvider {
  /** The lines a container printed so far (current or previous run), or why there are none to show. */
  read(pod: KObject, container: string, previous: boolean): { lines: PodLogLine[] } | { error: string };
  /** Streams the current run's lines after the first `skip`, until it stops; returns a cancel function. */
  follow(pod: KObject, container: string, skip: number, onLine: (l: PodLogLine) => void, onEnd: () => void): () => void;
  nowMs(): number;
}

/** Each server's provider: two servers in one process read their own kubelets' logs. */
const providers = new ServerSlot<{ provider?: LogProvider }>('log provider', () => ({}));
export function setLogProvider(reg: ServerStateHolder, p: LogProvider | undefined): void {
  reg.state(providers).provider = p;
}

/** The provider installed for the server of `reg` (or a view of it), if its kubelet simulation runs. */
export function logProvider(reg: ServerStateHolder): LogProvider | undefined {
  return reg.state(providers).provider;
}

/**
 * The kubelets' provider: lines from their log store. `wake` runs first with the pod's uid, so a pod whose runtime
 * record waits to be built (dormant after a restart) has its logs laid out before they are read.
 */
export function storeLogProvider(logs: LogStore, wake: (uid: string) => void, nowMs: () => number): LogProvider {
  return {
    nowMs,
    read: (pod, container, previous) => {
      const uid = pod.metadata.uid ?? '';
      wake(uid);
      const name = pod.metadata.name ?? '';
      if (logs.has(uid, container, previous)) return { lines: logs.lines(uid, container, previous) };
      if (previous) return { error: `previous terminated container "${container}" in pod "${name}" not found` };
      type Cs = Array<{ name: string; state?: { waiting?: { reason?: string } } }>;
      const st = pod.status as { containerStatuses?: Cs; initContainerStatuses?: Cs; ephemeralContainerStatuses?: Cs } | undefined;
      const cs = [...(st?.initContainerStatuses ?? []), ...(st?.containerStatuses ?? []), ...(st?.ephemeralContainerStatuses ?? [])].find((c) => c.name === container);
      const reason = cs?.state?.waiting?.reason ?? 'ContainerCreating';
      return { error: `container "${container}" in pod "${name}" is waiting to start: ${reason}` };
    },
    follow: (pod, container, skip, onLine, onEnd) => {
      const uid = pod.metadata.uid ?? '';
      wake(uid);
      return logs.follow(uid, container, skip, onLine, onEnd);
    },
  };
}
