// What every clock offers its readers (see clock.ts): the clocks' implementations import it from here, so that
// clock.ts, which gathers them, is not imported back.
export interface Clock {
  now(): Date;
  nowMs(): number;
  /** Runs fn after `ms` of clock time; returns a cancel function. */
  setTimeout(fn: () => void, ms: number): () => void;
  setInterval(fn: () => void, ms: number): () => void;
}
