import { KvBlockPool } from './kv-block-pool.js';
import { RequestQueue } from './request-queue.js';
import type { SimProfile } from './sim-profile.js';
import type { SimRequest } from './sim-request.js';

/** What one step computes, and what scheduling it did to the queues. */
export interface SimBatch {
  /** The requests the step computes tokens for, each with how many in its `scheduled`. */
  scheduled: SimRequest[];
  /** Tokens computed for prompts (and recomputed after preemption): those the prefix cache did not have. */
  prefillTokens: number;
  /** Requests decoding their next token. */
  decodeTokens: number;
  /** Requests preempted to make room (their KV freed, recomputed later). */
  preemptions: number;
  /** Tokens of the requests admitted this step, looked up in the prefix cache (vLLM's `prefix_cache_queries`). */
  prefixQueries: number;
  /** Of those, tokens found (vLLM's `prefix_cache_hits`). */
  prefixHits: number;
}

/** What a finished step did: who got a token, and who finished with it. */
export interface StepOutcome {
  released: SimRequest[];
  finished: SimRequest[];
}

/**
 * vLLM V1's scheduler over one replica's KV blocks. Each step first continues the running requests in
 * order (the rest of a chunked prefill, or one decode token each), preempting from the back of the
 * running list when the KV cache cannot hold a continuing request's next tokens (recompute: its blocks
 * are freed and it waits at the front of the queue). Only in a step that preempted no one, it admits
 * waiting requests while the batch has room (`maxNumSeqs`) and the token budget lasts
 * (`maxNumBatchedTokens`, the rest of a long prompt left for later steps: chunked prefill), each
 * starting after the longest prefix of full blocks the cache has.
 */
export class SimScheduler {
  readonly pool: KvBlockPool;
  readonly waiting = new RequestQueue();
  running: SimRequest[] = [];
  readonly #engine: SimProfile['engine'];

  constructor(engine: SimProfile['engine']) {
    this.#engine = engine;
    this.pool = new KvBlockPool(engine.numGpuBlocks, engine.blockSize, engine.enablePrefixCaching);
  }

  /**
   * The next step's batch, starting at `start`: only requests that had arrived by then are admitted,
   * and only those numbered below `admitBelow` (a pause that waits for the requests already in).
   */
  schedule(start: number, admitBelow = Infinity): SimBatch {
    const batch: SimBatch = { scheduled: [], prefillTokens: 0, decodeTokens: 0, preemptions: 0, prefixQueries: 0, prefixHits: 0 };
    let budget = this.#engine.maxNumBatchedTokens;
    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const request = this.running[i]!;
      const tokens = Math.min(request.tokens.length - request.computed, budget);
      if (tokens === 0) continue;
      if (!this.#makeRoom(request, tokens, batch)) break;
      this.#add(batch, request, tokens);
      budget -= tokens;
    }
    if (batch.preemptions > 0) return batch;
    while (budget > 0 && this.running.length < this.#engine.maxNumSeqs) {
      const request = this.waiting.peek();
      if (!request || request.arrival > start || request.id >= admitBelow) break;
      const tokens = this.#admit(request, budget, batch);
      if (tokens === 0) break;
      this.waiting.shift();
      this.running.push(request);
      request.status = 'running';
      this.#add(batch, request, tokens);
      budget -= tokens;
    }
    return batch;
  }

  /** Applies a finished step: computed tokens count, requests whose tokens are all computed release their next one. */
  complete(batch: SimBatch, end: number): StepOutcome {
    const outcome: StepOutcome = { released: [], finished: [] };
    for (const request of batch.scheduled) {
      // A request aborted during the step (its client left, or the replica failed) is already gone.
      if (request.status !== 'running') continue;
      request.computed += request.scheduled;
      if (request.computed < request.tokens.length) continue;
      request.release(end);
      outcome.released.push(request);
      if (request.complete) outcome.finished.push(request);
    }
    if (outcome.finished.length === 0) return outcome;
    for (const request of outcome.finished) this.#retire(request, 'finished');
    this.running = this.running.filter((request) => request.status === 'running');
    return outcome;
  }

  /** Takes a request out of the engine for good (finished early on a stop string, or aborted), its blocks released. */
  end(request: SimRequest, status: 'finished' | 'aborted'): void {
    if (request.status === 'running') this.running = this.running.filter((item) => item !== request);
    else if (request.status === 'waiting') this.waiting.remove(request);
    this.#retire(request, status);
  }

  /** Ends every request at once (a replica that fails): the ones that were waiting or running, in that order. */
  endAll(status: 'finished' | 'aborted'): SimRequest[] {
    const ended = [...this.waiting.drain(), ...this.running];
    this.running = [];
    for (const request of ended) this.#retire(request, status);
    return ended;
  }

  /** Its blocks released (their cached content stays findable until evicted). */
  #retire(request: SimRequest, status: 'finished' | 'aborted'): void {
    if (request.status === 'running') this.pool.release(request.blocks);
    request.blocks = [];
    request.status = status;
  }

  /** Grows `request`'s blocks to hold `tokens` more, preempting from the back of the running list until they fit; false when `request` itself was preempted. */
  #makeRoom(request: SimRequest, tokens: number, batch: SimBatch): boolean {
    const needed = this.#blocksFor(request.computed + tokens) - request.blocks.length;
    while (!this.pool.canTake([], needed)) {
      const victim = this.running.pop()!;
      this.#preempt(victim);
      batch.preemptions++;
      if (victim === request) return false;
    }
    request.blocks.push(...this.pool.take(needed));
    this.#cacheFullBlocks(request, request.computed + tokens);
    return true;
  }

  /** Sets a waiting request up to run (its cached prefix shared, blocks for `budget` tokens more taken); the tokens it computes this step, 0 when the KV cache cannot hold them. */
  #admit(request: SimRequest, budget: number, batch: SimBatch): number {
    const size = this.#engine.blockSize;
    // As vLLM: at least the last token is computed, so a fully cached prompt still yields its first token.
    const hits = this.pool.cachedPrefix(request.blockHashes(Math.floor((request.tokens.length - 1) / size)));
    const cachedTokens = hits.length * size;
    const tokens = Math.min(request.tokens.length - cachedTokens, budget);
    const needed = this.#blocksFor(cachedTokens + tokens) - hits.length;
    if (!this.pool.canTake(hits, needed)) return 0;
    this.pool.share(hits);
    request.blocks = [...hits, ...this.pool.take(needed)];
    request.computed = cachedTokens;
    request.cachedBlocks = hits.length;
    this.#cacheFullBlocks(request, cachedTokens + tokens);
    batch.prefixQueries += request.tokens.length;
    batch.prefixHits += cachedTokens;
    return tokens;
  }

  #preempt(request: SimRequest): void {
    this.pool.release(request.blocks);
    request.blocks = [];
    request.computed = 0;
    request.cachedBlocks = 0;
    request.preemptions++;
    request.status = 'waiting';
    this.waiting.pushFront(request);
  }

  /** Registers the blocks that `tokens` fill with the prefix cache (vLLM caches full blocks when it allocates them). */
  #cacheFullBlocks(request: SimRequest, tokens: number): void {
    const full = Math.floor(tokens / this.#engine.blockSize);
    if (full <= request.cachedBlocks || !this.pool.prefixCaching) return;
    const hashes = request.blockHashes(full);
    for (let block = request.cachedBlocks; block < full; block++) this.pool.cache(request.blocks[block]!, hashes[block]!);
    request.cachedBlocks = full;
  }

  #add(batch: SimBatch, request: SimRequest, tokens: number): void {
    request.scheduled = tokens;
    batch.scheduled.push(request);
    // Decoding: every known token but the last computed, and the last one computed now.
    const decoding = request.outputLength > 0 && tokens === 1 && request.computed === request.tokens.length - 1;
    if (decoding) batch.decodeTokens++;
    else batch.prefillTokens += tokens;
  }

  #blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.#engine.blockSize);
  }
}
