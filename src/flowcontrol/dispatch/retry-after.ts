// The Retry-After a rejection carries, per priority level, as upstream's dropped-requests tracker sets it: 1 s to
// begin with; doubled (at most 32) when the level dropped at least 3 × that many requests over the last that many
// seconds (and the last increase is that old), lowered by one when it dropped fewer than that many. It is
// reconsidered once a second, when a rejection falls in a new second.

const maxRetryAfter = 32;

class LevelDrops {
  /** Past seconds with drops: [unix second, count], the last `maxRetryAfter` seconds only. */
  private history: Array<[number, number]> = [];
  private second = 0;
  private count = 0;
  retryAfter = 1;
  private raisedAt = 0;

  record(unix: number): void {
    if (unix === this.second) {
      this.count++;
      return;
    }
    if (this.count > 0) this.history.push([this.second, this.count]);
    while (this.history.length && unix - this.history[0][0] > maxRetryAfter) this.history.shift();
    this.second = unix;
    this.count = 1;
    this.reconsider(unix);
  }

  private reconsider(unix: number): void {
    let dropped = 0;
    for (let i = this.history.length - 1; i >= 0; i--) {
      const [at, n] = this.history[i];
      if (unix - at > this.retryAfter) break;
      if (at < unix) dropped += n;
    }
    if (unix - this.raisedAt >= this.retryAfter && dropped >= 3 * this.retryAfter) {
      this.retryAfter = Math.min(maxRetryAfter, this.retryAfter * 2);
      this.raisedAt = unix;
    } else if (dropped < this.retryAfter && this.retryAfter > 1) {
      this.retryAfter--;
    }
  }
}

export class DroppedRequests {
  /** Bounded by the number of priority levels ever configured (names of stored objects). */
  private readonly levels = new Map<string, LevelDrops>();

  constructor(private readonly nowMs: () => number = Date.now) {}

  record(level: string): void {
    let l = this.levels.get(level);
    if (!l) {
      if (this.levels.size >= 10_000) this.levels.clear();
      this.levels.set(level, (l = new LevelDrops()));
    }
    l.record(Math.floor(this.nowMs() / 1000));
  }

  retryAfter(level: string): number {
    return this.levels.get(level)?.retryAfter ?? 1;
  }
}
