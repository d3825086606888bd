// The one clock that controllers, the scheduler and kubelets read. It can run faster than real time.
export interface Clock {
  now(): Date;
  nowMs(): number;
  /** Runs fn after `ms` of clock time; returns a cancel function. */
  setTimeout(fn: () => void, ms: number): () => void;
  setInterval(fn: () => void, ms: number): () => void;
}

export class ScaledClock implements Clock {
  private readonly startReal = Date.now();
  constructor(private readonly speed = 1, private readonly origin = Date.now()) {}
  nowMs(): number {
    return this.origin + (Date.now() - this.startReal) * this.speed;
  }
  now(): Date {
    return new Date(this.nowMs());
  }
  setTimeout(fn: () => void, ms: number): () => void {
    const t = setTimeout(fn, Math.max(0, ms / this.speed));
    t.unref();
    return () => clearTimeout(t);
  }
  setInterval(fn: () => void, ms: number): () => void {
    const t = setInterval(fn, Math.max(1, ms / this.speed));
    t.unref();
    return () => clearInterval(t);
  }
}

/** RFC3339 with second precision, as Kubernetes renders metav1.Time. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
/** RFC3339 with microseconds, as Kubernetes renders metav1.MicroTime. */
export function rfc3339Micro(d: Date): string {
  return d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}
