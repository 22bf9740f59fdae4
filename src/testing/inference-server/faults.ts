/** Misbehaviour the test server can be told to show on its next requests. */
export type Fault =
  | { kind: 'latency'; ms: number }
  | { kind: 'status'; status: number; retryAfterSeconds?: number; message?: string }
  /** Destroy the connection without answering. */
  | { kind: 'reset' }
  /** Never answer (until the client gives up or the server closes). */
  | { kind: 'hang' }
  /** Send headers and half of the body, then destroy the connection. */
  | { kind: 'truncate' }
  /** Answer as usual, but say the generation ended for `reason` (`content_filter`, `error`, …). */
  | { kind: 'finish-reason'; reason: string }
  /**
   * Answer as usual, but report the token sampled at `at` (default 0; past the end, the last one) as
   * `id` and/or its logprob as `logprob`, everywhere the API reports them, the text left as it was: a
   * server whose sampler or its bookkeeping went wrong. Not streamed answers.
   */
  | { kind: 'corrupt-token'; at?: number; id?: number; logprob?: number }
  /**
   * Answer as usual, but report the prompt's ids as `ids` wherever the answer has them (a server that
   * sampled from another prompt than it was sent, or rendered), or leave them out with `null` (a
   * server too old to return them). Not streamed answers.
   */
  | { kind: 'prompt-ids'; ids: number[] | null };

/** A FIFO of faults: each request takes the next one, if any. */
export class FaultQueue {
  readonly #queue: Fault[] = [];

  /** Applies `fault` to the next `times` requests. */
  inject(fault: Fault, times = 1): void {
    for (let i = 0; i < times; i++) this.#queue.push(fault);
  }

  next(): Fault | undefined {
    return this.#queue.shift();
  }

  clear(): void {
    this.#queue.length = 0;
  }
}
