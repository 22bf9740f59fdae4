const NONE = -1;

/** What the pool's own bookkeeping counts, walked block by block: the conservation a spec checks. */
export interface KvPoolAudit {
  /** Blocks some request holds (reference count above 0). */
  referenced: number;
  /** Blocks on the free queue (cached or not). */
  freeListed: number;
  /** The sum of every block's reference count: the blocks requests hold, a shared block once per holder. */
  references: number;
  /** Blocks whose content the prefix cache can find. */
  cached: number;
}

/**
 * A replica's paged KV cache as vLLM V1's block pool keeps it: `total` blocks of `blockSize` tokens,
 * each held by any number of requests (reference counts), and a free queue in LRU order. A full block
 * keeps its content hash after it is freed, so a later request with the same prefix takes it back
 * instead of computing it again, until the block is taken for new content (evicted from the head of the
 * queue). Blocks a request frees go to the tail last-block-first, so a sequence's tail is evicted
 * before its head, which more requests share.
 */
export class KvBlockPool {
  readonly #references: Int32Array;
  readonly #hashes: Float64Array;
  readonly #next: Int32Array;
  readonly #previous: Int32Array;
  #head = NONE;
  #tail = NONE;
  #free = 0;
  readonly #cached = new Map<number, number>();

  constructor(
    readonly total: number,
    readonly blockSize: number,
    readonly prefixCaching: boolean,
  ) {
    this.#references = new Int32Array(total);
    this.#hashes = new Float64Array(total).fill(NONE);
    this.#next = new Int32Array(total).fill(NONE);
    this.#previous = new Int32Array(total).fill(NONE);
    for (let block = 0; block < total; block++) this.#append(block);
  }

  /** Blocks free to take, cached ones included (vLLM counts them free too). */
  get freeBlocks(): number {
    return this.#free;
  }

  /** vLLM's `kv_cache_usage_perc`: the fraction of blocks some request holds. */
  get usage(): number {
    return 1 - this.#free / this.total;
  }

  /** The blocks holding the leading `hashes`, as far as the cache has them in a row (none without prefix caching). */
  cachedPrefix(hashes: readonly number[]): number[] {
    const blocks: number[] = [];
    if (!this.prefixCaching) return blocks;
    for (const hash of hashes) {
      const block = this.#cached.get(hash);
      if (block === undefined) break;
      blocks.push(block);
    }
    return blocks;
  }

  /** Whether `shared` (cached blocks about to be taken back) and `count` new blocks fit in the free blocks now. */
  canTake(shared: readonly number[], count: number): boolean {
    let freeShared = 0;
    for (const block of shared) if (this.#references[block] === 0) freeShared++;
    return count + freeShared <= this.#free;
  }

  /** Holds cached blocks for one more request, taking free ones off the queue. */
  share(blocks: readonly number[]): void {
    for (const block of blocks) {
      if (this.#references[block] === 0) this.#unlink(block);
      this.#references[block]! += 1;
    }
  }

  /** `count` new blocks from the head of the free queue, forgetting the content they cached; the caller checked they are there. */
  take(count: number): number[] {
    if (count > this.#free) throw new RangeError(`asked for ${count} KV blocks with ${this.#free} free`);
    const blocks: number[] = [];
    for (let i = 0; i < count; i++) {
      const block = this.#head;
      this.#unlink(block);
      this.#forget(block);
      this.#references[block] = 1;
      blocks.push(block);
    }
    return blocks;
  }

  /**
   * Lets later requests find `block` by its content hash. When another block already caches that
   * content (two requests computed the same prefix at once) the first stays the one found.
   */
  cache(block: number, hash: number): void {
    if (!this.prefixCaching || this.#cached.has(hash)) return;
    this.#hashes[block] = hash;
    this.#cached.set(hash, block);
  }

  /** Lets go of a request's blocks, last block first; a block no request holds any more goes to the tail of the free queue. */
  release(blocks: readonly number[]): void {
    for (let i = blocks.length - 1; i >= 0; i--) {
      const block = blocks[i]!;
      this.#references[block]! -= 1;
      if (this.#references[block] === 0) this.#append(block);
    }
  }

  /** Forgets what every free block caches (a prefix-cache reset, as after a weight update); blocks in use keep theirs. */
  forgetFreeBlocks(): void {
    for (let block = this.#head; block !== NONE; block = this.#next[block]!) this.#forget(block);
  }

  /** Counts the bookkeeping block by block (O(blocks)): for specs and invariant checks. */
  audit(): KvPoolAudit {
    let referenced = 0;
    let references = 0;
    let freeListed = 0;
    for (let block = 0; block < this.total; block++) {
      if (this.#references[block]! > 0) referenced++;
      references += this.#references[block]!;
    }
    for (let block = this.#head; block !== NONE; block = this.#next[block]!) freeListed++;
    return { referenced, freeListed, references, cached: this.#cached.size };
  }

  #forget(block: number): void {
    const hash = this.#hashes[block]!;
    if (hash === NONE) return;
    if (this.#cached.get(hash) === block) this.#cached.delete(hash);
    this.#hashes[block] = NONE;
  }

  #append(block: number): void {
    this.#previous[block] = this.#tail;
    this.#next[block] = NONE;
    if (this.#tail === NONE) this.#head = block;
    else this.#next[this.#tail] = block;
    this.#tail = block;
    this.#free++;
  }

  #unlink(block: number): void {
    const previous = this.#previous[block]!;
    const next = this.#next[block]!;
    if (previous === NONE) this.#head = next;
    else this.#next[previous] = next;
    if (next === NONE) this.#tail = previous;
    else this.#previous[next] = previous;
    this.#previous[block] = NONE;
    this.#next[block] = NONE;
    this.#free--;
  }
}
