import { subscribeAbort } from '../../util/subscribe-abort.js';
import { blockHash, ROOT_BLOCK_HASH } from './block-hash.js';

/** Where a request is in a replica: exactly one of these at any time. */
export type SimRequestStatus = 'waiting' | 'running' | 'finished' | 'aborted';

/** What a request will say: its output ids (end of sequence last when it stops on its own) and how it ends. */
export interface ReplyPlan {
  ids: readonly number[];
  finish: 'stop' | 'length';
  /** The request's own seed, for its logprobs. */
  seed: number;
}

/**
 * One request inside a replica's engine: its tokens (prompt, then the output ids released so far), how
 * many of them have their KV computed, the KV blocks it holds, and its timestamps in simulated seconds.
 */
export class SimRequest {
  readonly tokens: number[];
  readonly promptLength: number;
  status: SimRequestStatus = 'waiting';
  /** Tokens whose KV is computed (vLLM's `num_computed_tokens`); 0 again after a preemption. */
  computed = 0;
  /** KV blocks held, in sequence order. */
  blocks: number[] = [];
  /** How many leading blocks are registered with the prefix cache. */
  cachedBlocks = 0;
  preemptions = 0;
  firstTokenAt: number | undefined;
  lastTokenAt: number | undefined;
  /** When the token before the last one came out: the last inter-token latency is the difference. */
  previousTokenAt: number | undefined;
  /** Why it ended, when `status` is `aborted`. */
  error: Error | undefined;
  /** Tokens the step being computed computes for it. */
  scheduled = 0;
  readonly #hashes: number[] = [];
  #waiter: { resolve: () => void; reject: (reason: unknown) => void } | undefined;
  #signal: AbortSignal | undefined;
  #unsubscribe: (() => void) | undefined;
  /** Set once the followed signal aborts (boxed: a reason may be undefined). */
  #abortReason: { reason: unknown } | undefined;

  constructor(
    readonly id: number,
    promptIds: readonly number[],
    readonly reply: ReplyPlan,
    /** When the engine received it. */
    readonly arrival: number,
    /** Tokens per KV block: what its block hashes cover. */
    readonly blockSize: number,
  ) {
    this.tokens = [...promptIds];
    this.promptLength = promptIds.length;
  }

  /** Output tokens released so far. */
  get outputLength(): number {
    return this.tokens.length - this.promptLength;
  }

  /** Whether every planned token is out. */
  get complete(): boolean {
    return this.outputLength === this.reply.ids.length;
  }

  /** The content hashes of the first `count` blocks (all of them full of known tokens). */
  blockHashes(count: number): readonly number[] {
    const size = this.blockSize;
    for (let block = this.#hashes.length; block < count; block++) {
      this.#hashes.push(blockHash(this.#hashes.at(-1) ?? ROOT_BLOCK_HASH, this.tokens, block * size, (block + 1) * size));
    }
    return this.#hashes.length === count ? this.#hashes : this.#hashes.slice(0, count);
  }

  /** The next planned token becomes output, at simulated time `at`. */
  release(at: number): void {
    this.tokens.push(this.reply.ids[this.outputLength]!);
    this.firstTokenAt ??= at;
    this.previousTokenAt = this.lastTokenAt;
    this.lastTokenAt = at;
  }

  /** Wakes whoever waits on this request: tokens came out, or it ended. */
  notify(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (this.status === 'finished' || this.status === 'aborted') this.#unsubscribe?.();
    if (!waiter) return;
    if (this.status === 'aborted') waiter.reject(this.error);
    else waiter.resolve();
  }

  /**
   * Resolves once more than `seen` output tokens are out or the request has ended; rejects with its
   * error when it was aborted (a replica that failed), or with the signal's reason. The signal is
   * subscribed to once per request, not once per wait: a reply waits once per token.
   */
  changed(seen: number, signal: AbortSignal): Promise<void> {
    if (this.status === 'aborted') return Promise.reject(this.error);
    if (this.outputLength > seen || this.status === 'finished') return Promise.resolve();
    if (this.#signal !== signal) this.#follow(signal);
    if (this.#abortReason !== undefined) return Promise.reject(this.#abortReason.reason);
    return new Promise<void>((resolve, reject) => (this.#waiter = { resolve, reject }));
  }

  #follow(signal: AbortSignal): void {
    this.#unsubscribe?.();
    this.#signal = signal;
    this.#abortReason = signal.aborted ? { reason: signal.reason } : undefined;
    const unsubscribe = subscribeAbort(signal, (reason) => {
      this.#abortReason = { reason };
      const waiter = this.#waiter;
      this.#waiter = undefined;
      waiter?.reject(reason);
    });
    this.#unsubscribe = () => {
      unsubscribe();
      this.#unsubscribe = undefined;
      this.#signal = undefined;
    };
  }
}
