// Where pods/log reads container output: the kubelet simulation installs a provider, the API's log handler asks it.
import type { KObject } from '../machinery/types.js';

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

let provider: LogProvider | undefined;
export function setLogProvider(p: LogProvider | undefined): void {
  provider = p;
}

/** The installed provider, if the kubelet simulation runs. */
export function logProvider(): LogProvider | undefined {
  return provider;
}

