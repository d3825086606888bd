// The clock leader election runs on: real time, whatever the simulation clock does.
//
// A Lease is a contract between processes. Their simulated clocks are not shared: each may run at its own
// `--clock-speed`, be paused, or be virtual (jumping whenever its process is idle). On simulated time a paused
// leader would keep its lease forever, a 100x clock would let leases lapse between renewals on a loaded machine,
// and two processes would disagree on how long 15 s is. Upstream's components measure lease expiry on their
// own monotonic clock, from when they last saw the record change: that is what this clock serves. Tests pass a
// ManualClock instead.
import type { Clock } from '../util/clock.js';

export const realClock: Clock = {
  now: () => new Date(),
  nowMs: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, Math.max(0, ms));
    // Election timers never keep the process alive on their own.
    t.unref();
    return () => clearTimeout(t);
  },
  setInterval(fn, ms) {
    const t = setInterval(fn, Math.max(1, ms));
    t.unref();
    return () => clearInterval(t);
  },
};
