/**
 * A Prometheus histogram: how many observations fell at or under each bucket's upper bound, their sum
 * and count. Counts are kept per bucket and made cumulative when read, as the text format wants.
 */
export class LatencyHistogram {
  readonly #counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly buckets: readonly number[]) {
    this.#counts = new Float64Array(buckets.length);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    const bucket = this.buckets.findIndex((bound) => value <= bound);
    if (bucket >= 0) this.#counts[bucket]! += 1;
  }

  /** Observations at or under each bound, in bucket order (the `+Inf` bucket is `count`). */
  cumulative(): number[] {
    let total = 0;
    return [...this.#counts].map((count) => (total += count));
  }
}
