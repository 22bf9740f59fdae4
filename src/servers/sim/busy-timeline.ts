/**
 * A replica's busy time over simulated time, in buckets of `bucketSeconds`: how much of each bucket its
 * engine spent in steps. What a utilization-over-time picture plots, without keeping every step.
 */
export class BusyTimeline {
  #busy = new Float64Array(64);
  #buckets = 0;

  constructor(readonly bucketSeconds: number) {
    if (!(bucketSeconds > 0)) throw new RangeError(`bucketSeconds must be > 0, got ${bucketSeconds}`);
  }

  /** Counts `[start, end)` as busy, split across the buckets it spans. */
  add(start: number, end: number): void {
    const width = this.bucketSeconds;
    let from = start;
    for (let bucket = Math.floor(start / width); from < end; bucket++) {
      const to = Math.min(end, (bucket + 1) * width);
      this.#grow(bucket + 1);
      this.#busy[bucket]! += Math.max(0, to - from);
      from = Math.max(from, to);
    }
  }

  /** The busy fraction of each bucket from time 0 to the last busy one (the last may be partly elapsed). */
  fractions(): number[] {
    return Array.from(this.#busy.subarray(0, this.#buckets), (seconds) => Math.min(1, seconds / this.bucketSeconds));
  }

  #grow(buckets: number): void {
    if (buckets > this.#busy.length) {
      const grown = new Float64Array(Math.max(buckets, this.#busy.length * 2));
      grown.set(this.#busy);
      this.#busy = grown;
    }
    this.#buckets = Math.max(this.#buckets, buckets);
  }
}
