// A deliberate difference from upstream: a request that only awaits a call out of the process (an admission
// webhook) gives its APF seat back for the call's duration. In one Node.js process such a wait costs no CPU; upstream
// keeps the seat (a goroutine per request), so a stalled webhook fills its level's seats and every flow of the level
// waits behind it. The calls a server may have outstanding this way are bounded separately (by its concurrency
// limit): past that bound a request keeps its seat while it calls out, as upstream's always do. When the call
// settles the request takes its seat back at once, beyond the level's limit if need be (what is left is short).

/** What a request in flight can do with its seat. */
export interface SuspendableSeat {
  /** Gives the seat back; false when it cannot (the bound on outstanding calls is reached, or no seat is held). */
  suspend(): boolean;
  resume(): void;
}

const seats = new WeakMap<object, SuspendableSeat>();

/** Binds a request's seat to the object its handling carries along (the request's registry view). */
export function bindSeat(carrier: object, seat: SuspendableSeat): void {
  seats.set(carrier, seat);
}

/** The seat bound to `carrier` or to what it derives from (views of views, a few levels deep). */
function seatOf(carrier: object | undefined): SuspendableSeat | undefined {
  let o: object | null | undefined = carrier;
  for (let depth = 0; o && depth < 4; depth++, o = Object.getPrototypeOf(o) as object | null) {
    const s = seats.get(o);
    if (s) return s;
  }
  return undefined;
}

/** Runs `call` (a call out of the process) with the seat of the request `carrier` belongs to given back meanwhile. */
export async function awaitingOutbound<T>(carrier: object | undefined, call: () => Promise<T>): Promise<T> {
  const seat = seatOf(carrier);
  const suspended = seat?.suspend() ?? false;
  try {
    return await call();
  } finally {
    if (suspended) seat?.resume();
  }
}

/** Counts the calls outstanding with their seats given back, up to a bound. */
export class OutboundBound {
  outstanding = 0;
  constructor(readonly max: number) {}
  take(): boolean {
    if (this.outstanding >= this.max) return false;
    this.outstanding++;
    return true;
  }
  give(): void {
    this.outstanding--;
  }
}
