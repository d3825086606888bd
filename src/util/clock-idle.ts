// Whether the process has simulated work to do, for clocks that move on only when it has none: callbacks waiting
// in the immediate queue (work queues, the scheduler and group commit drain from there), file or network requests
// Bonsai started and awaits (webhook calls, DNS, file reads), and what registered sources report busy (HTTP
// requests being answered). Microtasks need no check: Node drains them before any immediate runs.

/** Kinds of `process.getActiveResourcesInfo()` entries that are work in progress. Sockets, servers and real timers are not. */
const workKinds = new Set([
  'Immediate', 'FSReqCallback', 'FSReqPromise', 'FileHandleCloseReq', 'TCPConnectWrap', 'PipeConnectWrap', 'GetAddrInfoReqWrap',
  'GetNameInfoReqWrap', 'QueryReqWrap', 'ShutdownWrap', 'ZlibWrap',
]);

export type BusySource = () => boolean;

/** Immediates the clocks' own probes have queued: not work (two clocks in one process must not wait for each other). */
let probesQueued = 0;

/** Runs `fn` on the next turn, as a probe of idleness (not counted as work). */
export function probeNextTurn(fn: () => void): void {
  probesQueued++;
  setImmediate(() => {
    probesQueued--;
    fn();
  });
}

export class IdleProbe {
  private readonly sources = new Set<BusySource>();

  /** Adds a source of work (true: busy); returns its removal. */
  add(source: BusySource): () => void {
    this.sources.add(source);
    return () => void this.sources.delete(source);
  }

  /**
   * 'idle', or what keeps the process busy: 'queued' (callbacks are waiting: look again on the next turn) or
   * 'waiting' (I/O or a request in flight: look again a little later, without spinning).
   */
  state(): 'idle' | 'queued' | 'waiting' {
    let waiting = false;
    let immediates = 0;
    for (const kind of process.getActiveResourcesInfo()) {
      if (kind === 'Immediate') immediates++;
      else if (workKinds.has(kind)) waiting = true;
    }
    if (immediates > probesQueued) return 'queued';
    if (waiting) return 'waiting';
    for (const s of this.sources) {
      try {
        if (s()) return 'waiting';
      } catch {
        // A failing source cannot say it is busy.
      }
    }
    return 'idle';
  }
}
