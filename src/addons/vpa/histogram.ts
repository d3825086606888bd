// A decaying histogram with exponentially growing buckets, the VPA recommender's model of usage over time: a fixed
// number of buckets (so it is bounded whatever it is fed), each sample weighted by 2^((t - reference) / halfLife)
// so that recent samples count more; percentiles answer the end of the bucket the percentile falls in.

/** Bucket layout: the first bucket's size, the growth ratio, and the value the last bucket starts near. */
export interface HistogramOptions {
  firstBucketSize: number;
  ratio: number;
  maxValue: number;
  /** Weights below this count as empty. */
  epsilon: number;
}

/** Weight of one sample (upstream's minSampleWeight) and the epsilon derived from it. */
export const minSampleWeight = 0.1;
const epsilon = 0.001 * minSampleWeight;
/** 5% larger buckets each step, as upstream's default. */
const growth = 1.05;

export const cpuHistogramOptions: HistogramOptions = { firstBucketSize: 0.01, ratio: growth, maxValue: 1000, epsilon };
export const memoryHistogramOptions: HistogramOptions = { firstBucketSize: 1e7, ratio: growth, maxValue: 1e12, epsilon };

/** Shift the reference time once a sample is more than this many half-lives past it (keeps weights finite). */
const maxDecayExponent = 100;

export class DecayingHistogram {
  private readonly weights: Float64Array;
  private total = 0;
  private minBucket: number;
  private maxBucket = 0;
  private reference: number | undefined;
  readonly buckets: number;

  constructor(private readonly opts: HistogramOptions, private readonly halfLifeMs: number) {
    this.buckets = Math.ceil(Math.log(opts.maxValue * (opts.ratio - 1) / opts.firstBucketSize + 1) / Math.log(opts.ratio)) + 1;
    this.weights = new Float64Array(this.buckets);
    this.minBucket = this.buckets - 1;
  }

  bucketStart(i: number): number {
    return i <= 0 ? 0 : this.opts.firstBucketSize * (this.opts.ratio ** i - 1) / (this.opts.ratio - 1);
  }

  findBucket(value: number): number {
    if (!(value >= this.opts.firstBucketSize)) return 0;
    const b = Math.floor(Math.log(value * (this.opts.ratio - 1) / this.opts.firstBucketSize + 1) / Math.log(this.opts.ratio));
    return Math.min(b, this.buckets - 1);
  }

  isEmpty(): boolean {
    return this.weights[this.minBucket] < this.opts.epsilon;
  }

  addSample(value: number, weight: number, atMs: number): void {
    this.change(value, weight * this.decayFactor(atMs));
  }

  /** Removes a sample added before with the same value, weight and time (memory peaks that were superseded). */
  subtractSample(value: number, weight: number, atMs: number): void {
    this.change(value, -weight * this.decayFactor(atMs));
  }

  percentile(p: number): number {
    if (this.isEmpty()) return 0;
    const threshold = p * this.total;
    let sum = 0;
    let b = this.minBucket;
    for (; b < this.maxBucket; b++) {
      sum += this.weights[b];
      if (sum >= threshold) break;
    }
    return b < this.buckets - 1 ? this.bucketStart(b + 1) : this.bucketStart(b);
  }

  private change(value: number, w: number): void {
    if (!Number.isFinite(value) || !Number.isFinite(w) || w === 0) return;
    const b = this.findBucket(value);
    if (w > 0) {
      this.weights[b] += w;
      this.total += w;
      if (this.weights[b] >= this.opts.epsilon) {
        if (b < this.minBucket) this.minBucket = b;
        if (b > this.maxBucket) this.maxBucket = b;
      }
      return;
    }
    const next = this.weights[b] + w;
    this.total = Math.max(0, this.total + w);
    this.weights[b] = next < this.opts.epsilon ? 0 : next;
    if (this.weights[b] >= this.opts.epsilon) return;
    // Emptied a bucket: move the ends inwards (an empty histogram ends with min at the last bucket, max at 0).
    while (this.minBucket < this.buckets - 1 && this.weights[this.minBucket] < this.opts.epsilon) this.minBucket++;
    while (this.maxBucket > 0 && this.weights[this.maxBucket] < this.opts.epsilon) this.maxBucket--;
  }

  private decayFactor(atMs: number): number {
    if (this.reference === undefined || atMs > this.reference + this.halfLifeMs * maxDecayExponent) this.shiftReference(atMs);
    return 2 ** ((atMs - this.reference!) / this.halfLifeMs);
  }

  /** Moves the reference to `atMs` (rounded to a half-life) and rescales the stored weights to match. */
  private shiftReference(atMs: number): void {
    const next = Math.round(atMs / this.halfLifeMs) * this.halfLifeMs;
    if (this.reference !== undefined) {
      const scale = 2 ** Math.round((this.reference - next) / this.halfLifeMs);
      for (let i = 0; i < this.buckets; i++) this.weights[i] *= scale;
      this.total *= scale;
    }
    this.reference = next;
  }
}
