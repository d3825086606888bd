// Lets a simulated runtime end a running container whose process ended in a session: the shell a container runs
// as its own process (`kubectl run -it … -- sh`, `kubectl debug -i … -- sh`) exits, so the container terminates
// with its exit code. The pod lifecycle installs the sink.
import { ServerSlot, type ServerStateHolder } from '../util/server-slot.js';

type Sink = (podUid: string, container: string, exitCode: number) => boolean;

const sinks = new ServerSlot<{ sink?: Sink }>('container exit sink', () => ({}));

export function setContainerExitSink(reg: ServerStateHolder, s: Sink | undefined): void {
  reg.state(sinks).sink = s;
}

/** The process of `container` in pod `uid` exited with `exitCode` now; false when no such running container. */
export function containerExited(reg: ServerStateHolder, uid: string, container: string, exitCode: number): boolean {
  return reg.state(sinks).sink?.(uid, container, exitCode & 255) ?? false;
}
